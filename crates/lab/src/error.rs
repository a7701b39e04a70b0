//! How a lab run can fail.

/// A failure that ends a run early; `lab::run` returns it in `RunEnd::error`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabError {
    /// The arena has no pages left for a new span.
    ArenaFull { mapped_mb: u64, arena_mb: u64 },
    /// The arena's address space could not be reserved (an address-space limit).
    ArenaReserve { arena_mb: u64 },
}

impl std::fmt::Display for LabError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LabError::ArenaFull {
                mapped_mb,
                arena_mb,
            } => write!(
                f,
                "the lab's arena is full ({mapped_mb} MB of {arena_mb} MB in use); \
                 raise it with --arena-mb (for example --arena-mb {}) or lower --scale",
                (arena_mb * 2).clamp(64, 65_536)
            ),
            LabError::ArenaReserve { arena_mb } => write!(
                f,
                "cannot reserve the lab's {arena_mb} MB arena (an address-space limit, ulimit -v?); \
                 give a smaller one with --arena-mb (for example --arena-mb {}); pages are \
                 mapped only as the heap grows",
                (arena_mb / 4).max(64)
            ),
        }
    }
}

impl std::error::Error for LabError {}

/// A lab run that fails ends its source so, said in words (the model knows no lab types).
impl From<LabError> for gcscope_model::SourceError {
    fn from(e: LabError) -> gcscope_model::SourceError {
        gcscope_model::SourceError::Lab(e.to_string())
    }
}
