//! Ids with types of their own, so a run's index is never taken for a source's, a cycle's
//! place in its run, or a count (the lab's heap has its own: `PageId`, `SpanId`).

/// A run (one Go process, or a stretch of a log whose cycle counter did not restart) within
/// its source: the index of `Timeline::runs`, from 0 in the order runs began.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct RunId(usize);

impl RunId {
    pub const FIRST: RunId = RunId(0);

    #[must_use]
    pub const fn from_index(index: usize) -> RunId {
        RunId(index)
    }

    /// The index into the source's runs.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0
    }

    /// As people count runs, from 1 (`run 1`, the JSON's `run`).
    #[must_use]
    pub const fn number(self) -> usize {
        self.0 + 1
    }

    /// The run after this one.
    #[must_use]
    pub const fn next(self) -> RunId {
        RunId(self.0 + 1)
    }
}

/// A source on screen (a pane: a file, a program, an A/B's side): the index of the
/// dashboard's sources, in the order given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct SourceId(usize);

impl SourceId {
    #[must_use]
    pub const fn from_index(index: usize) -> SourceId {
        SourceId(index)
    }

    #[must_use]
    pub const fn index(self) -> usize {
        self.0
    }

    /// The source after this one (an A/B's side B, sent by side A's source).
    #[must_use]
    pub const fn next(self) -> SourceId {
        SourceId(self.0 + 1)
    }
}

/// A cycle's place in its run's cycles, from 0: not the number Go prints (`gc 17`), which
/// need not start at 1 (a log cut from the middle of a run) nor step by 1 (sampled lines).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct CycleIndex(usize);

impl CycleIndex {
    #[must_use]
    pub const fn from_index(index: usize) -> CycleIndex {
        CycleIndex(index)
    }

    #[must_use]
    pub const fn index(self) -> usize {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_count_from_one_for_people_and_from_zero_for_indexing() {
        let r = RunId::FIRST.next();
        assert_eq!((r.index(), r.number()), (1, 2));
        assert!(RunId::FIRST < r);
        assert_eq!(SourceId::from_index(0).next().index(), 1);
        assert_eq!(CycleIndex::from_index(7).index(), 7);
    }
}
