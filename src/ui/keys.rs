//! The one key table: dispatch, the help overlay and the hint bar all read it.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Quit,
    Help,
    PlayPause,
    StepBack,
    StepForward,
    Faster,
    Slower,
    Start,
    End,
    AllAtOnce,
    SwitchFocus,
    Follow,
    Jump,
    ZoomIn,
    ZoomOut,
    PrevRun,
    NextRun,
    LinkMode,
    LabWorkload,
    LabMarker,
    LabGogcUp,
    LabGogcDown,
}

impl Action {
    /// Actions that only mean something with a live lab source.
    pub fn lab_only(self) -> bool {
        matches!(
            self,
            Action::LabWorkload | Action::LabMarker | Action::LabGogcUp | Action::LabGogcDown
        )
    }

    /// Replay actions, which a live lab has no use for.
    fn replay_only(self) -> bool {
        matches!(self, Action::PlayPause | Action::Faster | Action::Slower)
    }
}

pub struct Binding {
    pub keys: &'static str,
    pub codes: &'static [KeyCode],
    pub action: Action,
    pub help: &'static str,
    /// Label in the hint bar (the most used ones).
    pub hint: Option<&'static str>,
}

pub const BINDINGS: &[Binding] = &[
    Binding {
        keys: "q",
        codes: &[KeyCode::Char('q'), KeyCode::Esc],
        action: Action::Quit,
        help: "quit (also Esc, Ctrl-C)",
        hint: Some("quit"),
    },
    Binding {
        keys: "?",
        codes: &[KeyCode::Char('?'), KeyCode::Char('h')],
        action: Action::Help,
        help: "this help",
        hint: Some("help"),
    },
    Binding {
        keys: "space",
        codes: &[KeyCode::Char(' ')],
        action: Action::PlayPause,
        help: "replay at the trace's own timestamps / pause",
        hint: Some("play/pause"),
    },
    Binding {
        keys: "← →",
        codes: &[KeyCode::Left],
        action: Action::StepBack,
        help: "step one cycle back / forward",
        hint: Some("step"),
    },
    Binding {
        keys: "",
        codes: &[KeyCode::Right],
        action: Action::StepForward,
        help: "",
        hint: None,
    },
    Binding {
        keys: "+ -",
        codes: &[KeyCode::Char('+'), KeyCode::Char('=')],
        action: Action::Faster,
        help: "replay speed up / down (x0.25 ... x1000)",
        hint: Some("speed"),
    },
    Binding {
        keys: "",
        codes: &[KeyCode::Char('-'), KeyCode::Char('_')],
        action: Action::Slower,
        help: "",
        hint: None,
    },
    Binding {
        keys: "g G",
        codes: &[KeyCode::Char('g'), KeyCode::Home],
        action: Action::Start,
        help: "jump to the start / end",
        hint: Some("start/end"),
    },
    Binding {
        keys: "",
        codes: &[KeyCode::Char('G'), KeyCode::End],
        action: Action::End,
        help: "",
        hint: None,
    },
    Binding {
        keys: "a",
        codes: &[KeyCode::Char('a')],
        action: Action::AllAtOnce,
        help: "show all cycles at once (stop the replay)",
        hint: None,
    },
    Binding {
        keys: "/",
        codes: &[KeyCode::Char('/')],
        action: Action::Jump,
        help: "jump to cycle N (type the number, Enter)",
        hint: Some("go to cycle"),
    },
    Binding {
        keys: "z Z",
        codes: &[KeyCode::Char('z')],
        action: Action::ZoomIn,
        help: "zoom the time axis in / out",
        hint: Some("zoom"),
    },
    Binding {
        keys: "",
        codes: &[KeyCode::Char('Z')],
        action: Action::ZoomOut,
        help: "",
        hint: None,
    },
    Binding {
        keys: "Tab",
        codes: &[KeyCode::Tab, KeyCode::BackTab],
        action: Action::SwitchFocus,
        help: "switch focus between A and B",
        hint: Some("A/B"),
    },
    Binding {
        keys: "l",
        codes: &[KeyCode::Char('l')],
        action: Action::LinkMode,
        help: "link A/B cursors by cycle index or by time",
        hint: None,
    },
    Binding {
        keys: "f",
        codes: &[KeyCode::Char('f')],
        action: Action::Follow,
        help: "freeze / follow the newest cycle",
        hint: Some("follow"),
    },
    Binding {
        keys: "[ ]",
        codes: &[KeyCode::Char('[')],
        action: Action::PrevRun,
        help: "previous / next run (process) in the source",
        hint: None,
    },
    Binding {
        keys: "",
        codes: &[KeyCode::Char(']')],
        action: Action::NextRun,
        help: "",
        hint: None,
    },
    Binding {
        keys: "w",
        codes: &[KeyCode::Char('w')],
        action: Action::LabWorkload,
        help: "lab: next workload (a fresh, labelled run)",
        hint: Some("workload"),
    },
    Binding {
        keys: "m",
        codes: &[KeyCode::Char('m')],
        action: Action::LabMarker,
        help: "lab: switch marker, legacy / Green Tea (one-sided lab only)",
        hint: Some("marker"),
    },
    Binding {
        keys: "< >",
        codes: &[KeyCode::Char('<')],
        action: Action::LabGogcDown,
        help: "lab: GOGC halved / doubled (a fresh run)",
        hint: Some("GOGC"),
    },
    Binding {
        keys: "",
        codes: &[KeyCode::Char('>')],
        action: Action::LabGogcUp,
        help: "",
        hint: None,
    },
];

/// The action for a key press, if any.
pub fn action(key: KeyEvent) -> Option<Action> {
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
        return Some(Action::Quit);
    }
    BINDINGS
        .iter()
        .find(|b| b.codes.contains(&key.code))
        .map(|b| b.action)
}

/// Help overlay rows: (keys, what they do).
pub fn help_rows() -> impl Iterator<Item = (&'static str, &'static str)> {
    BINDINGS
        .iter()
        .filter(|b| !b.keys.is_empty())
        .map(|b| (b.keys, b.help))
}

/// The hint bar: `key word` pairs of the most used bindings; with a live lab, its keys
/// instead of the replay ones (the marker switch only where there is one marker).
pub fn hints(lab: bool, marker_switch: bool) -> Vec<(&'static str, &'static str)> {
    BINDINGS
        .iter()
        .filter(|b| {
            if lab {
                !b.action.replay_only() && (marker_switch || b.action != Action::LabMarker)
            } else {
                !b.action.lab_only()
            }
        })
        .filter_map(|b| b.hint.map(|h| (b.keys, h)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_has_a_key_and_keys_are_unique() {
        let mut seen = Vec::new();
        for b in BINDINGS {
            for c in b.codes {
                assert!(!seen.contains(c), "{c:?} bound twice");
                seen.push(*c);
            }
        }
        let press = |c| action(KeyEvent::new(c, KeyModifiers::NONE));
        assert_eq!(press(KeyCode::Char('q')), Some(Action::Quit));
        assert_eq!(press(KeyCode::Right), Some(Action::StepForward));
        assert_eq!(
            action(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Action::Quit)
        );
        assert_eq!(press(KeyCode::Char('x')), None);
        assert!(help_rows().any(|(k, _)| k == "Tab"));
    }
}
