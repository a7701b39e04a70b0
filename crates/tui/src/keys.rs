//! The one key table: dispatch in every mode, the help overlay and the hint bar all read it.

use super::app::Mode;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Declares `Action` and `Action::ALL` from one list, so `ALL` cannot miss a variant.
macro_rules! actions {
    ($($name:ident),+ $(,)?) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Action {
            $($name),+
        }

        impl Action {
            /// Every action, in declaration order.
            pub const ALL: &'static [Action] = &[$(Action::$name),+];
        }
    };
}

actions! {
    Quit,
    Help,
    Findings,
    Tune,
    Snapshot,
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
    #[must_use]
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

/// One action's keys. A binding with neither `keys` nor `help` shares the help row of the
/// binding above it (`← →` is one row for two actions).
pub struct Binding {
    /// The keys as the help overlay and the hint bar show them.
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
        keys: "? i t s",
        codes: &[KeyCode::Char('?'), KeyCode::Char('h')],
        action: Action::Help,
        help: "help / findings (1-9: a cycle) / tune (model) / s: SVG",
        hint: Some("help"),
    },
    Binding {
        keys: "",
        codes: &[KeyCode::Char('i')],
        action: Action::Findings,
        help: "",
        hint: None,
    },
    Binding {
        keys: "",
        codes: &[KeyCode::Char('t')],
        action: Action::Tune,
        help: "",
        hint: None,
    },
    Binding {
        keys: "",
        codes: &[KeyCode::Char('s')],
        action: Action::Snapshot,
        help: "",
        hint: None,
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

/// The action for a key press, if any. A binding's key acts only on its own: with no
/// modifier, or with Shift alone, which many terminals report with `G`, `Z`, `?`, `<`, `>`,
/// `+`, `_` and BackTab; with Ctrl, Alt or any other modifier it does nothing (Alt-q does not
/// quit, Ctrl-z does not zoom). Ctrl-C quits, as everywhere.
#[must_use]
pub fn action(key: KeyEvent) -> Option<Action> {
    if interrupt(key) {
        return Some(Action::Quit);
    }
    if !key.modifiers.difference(KeyModifiers::SHIFT).is_empty() {
        return None;
    }
    BINDINGS
        .iter()
        .find(|b| b.codes.contains(&key.code))
        .map(|b| b.action)
}

/// Ctrl-C (with Shift or not): quits in every mode.
fn interrupt(key: KeyEvent) -> bool {
    key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c')
}

/// What a key press does in a mode (see `dispatch`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// The table's action for the key.
    Act(Action),
    /// Close the overlay, doing nothing else.
    Close,
    /// To the findings overlay: the character typed (a digit goes to that finding), or
    /// `None` for a key that types none; either closes it.
    Finding(Option<char>),
    /// To `/`'s cycle number: the character typed, `'\n'` for Enter, `'\u{8}'` for
    /// Backspace, or `None` for any other key (which cancels).
    Jump(Option<char>),
    /// Not a gcscope key: the hint bar says so, and nothing changes.
    Unbound,
}

/// What `key` does in `mode`, by the table: the panes take every action; the help overlay
/// closes on any action key but quit; the findings overlay takes every key but its own
/// (`i`, which closes it) and quit; `/` takes every key but Ctrl-C (Esc and `q` cancel it).
/// Ctrl-C quits in every mode.
pub fn dispatch(mode: &Mode, key: KeyEvent) -> Input {
    let act = action(key);
    match mode {
        Mode::Normal => act.map_or(Input::Unbound, Input::Act),
        Mode::Help => match act {
            Some(Action::Quit) => Input::Act(Action::Quit),
            Some(_) => Input::Close,
            None => Input::Unbound,
        },
        Mode::Tune => match act {
            Some(a @ (Action::Quit | Action::Tune)) => Input::Act(a),
            Some(_) => Input::Close,
            None => Input::Unbound,
        },
        Mode::Findings => match act {
            Some(a @ (Action::Quit | Action::Findings)) => Input::Act(a),
            _ => Input::Finding(key.code.as_char()),
        },
        Mode::Jump(_) if interrupt(key) => Input::Act(Action::Quit),
        Mode::Jump(_) => Input::Jump(match key.code {
            KeyCode::Enter => Some('\n'),
            KeyCode::Backspace => Some('\u{8}'),
            other => other.as_char(),
        }),
    }
}

/// A key as the hint bar names it: `x`, `Ctrl-x`, `Alt-Up`.
#[must_use]
pub fn name(key: KeyEvent) -> String {
    let mut name = String::new();
    for (m, s) in [
        (KeyModifiers::CONTROL, "Ctrl-"),
        (KeyModifiers::ALT, "Alt-"),
    ] {
        if key.modifiers.contains(m) {
            name.push_str(s);
        }
    }
    match key.code {
        KeyCode::Char(c) => name.push(c),
        other => name.push_str(&format!("{other:?}")),
    }
    name
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
#[must_use]
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

    fn press(code: KeyCode) -> Option<Action> {
        action(KeyEvent::new(code, KeyModifiers::NONE))
    }

    /// How the help overlay spells a key.
    fn label(code: KeyCode) -> String {
        match code {
            KeyCode::Char(' ') => "space".into(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Left => "←".into(),
            KeyCode::Right => "→".into(),
            other => format!("{other:?}"),
        }
    }

    /// The help row a binding is shown on: its own, or the one above for a binding with
    /// neither keys nor help.
    fn help_row(i: usize) -> &'static Binding {
        let row = BINDINGS[..=i]
            .iter()
            .rposition(|b| !b.keys.is_empty())
            .unwrap_or_else(|| panic!("{:?} has no help row above it", BINDINGS[i].action));
        &BINDINGS[row]
    }

    #[test]
    fn every_action_has_a_key() {
        for &a in Action::ALL {
            assert!(
                BINDINGS
                    .iter()
                    .any(|b| b.action == a && !b.codes.is_empty()),
                "{a:?} has no key in BINDINGS"
            );
        }
    }

    /// One table for every mode (`dispatch` reads it before the mode decides): so no key may
    /// appear twice in it at all, and every key must reach the action the table gives it.
    #[test]
    fn no_key_is_bound_twice_and_every_key_dispatches_to_its_action() {
        let all: Vec<(KeyCode, Action)> = BINDINGS
            .iter()
            .flat_map(|b| b.codes.iter().map(move |&c| (c, b.action)))
            .collect();
        for (i, (c, a)) in all.iter().enumerate() {
            for (c2, a2) in &all[i + 1..] {
                assert_ne!(c, c2, "{c:?} is bound to {a:?} and to {a2:?}");
            }
            assert_eq!(press(*c), Some(*a), "{c:?}");
        }
        assert_eq!(
            action(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Action::Quit)
        );
        assert_eq!(press(KeyCode::Char('x')), None);
    }

    /// A binding acts with no modifier or Shift alone; Ctrl, Alt and the rest make a key
    /// do nothing, except Ctrl-C, which quits.
    #[test]
    fn modifiers_are_matched() {
        let with = |code, m| action(KeyEvent::new(code, m));
        assert_eq!(
            with(KeyCode::Char('q'), KeyModifiers::NONE),
            Some(Action::Quit)
        );
        assert_eq!(with(KeyCode::Char('q'), KeyModifiers::ALT), None);
        assert_eq!(with(KeyCode::Char('z'), KeyModifiers::CONTROL), None);
        assert_eq!(
            with(KeyCode::Char('G'), KeyModifiers::SHIFT),
            Some(Action::End)
        );
        assert_eq!(
            with(KeyCode::BackTab, KeyModifiers::SHIFT),
            Some(Action::SwitchFocus)
        );
        assert_eq!(
            with(KeyCode::Char('c'), KeyModifiers::CONTROL),
            Some(Action::Quit)
        );
        assert_eq!(
            with(
                KeyCode::Char('c'),
                KeyModifiers::CONTROL | KeyModifiers::SHIFT
            ),
            Some(Action::Quit)
        );
        assert_eq!(with(KeyCode::Char('c'), KeyModifiers::NONE), None);
        for b in BINDINGS {
            for &code in b.codes {
                assert_eq!(
                    with(code, KeyModifiers::SHIFT),
                    Some(b.action),
                    "Shift {code:?}"
                );
                for m in [
                    KeyModifiers::CONTROL,
                    KeyModifiers::ALT,
                    KeyModifiers::SUPER,
                    KeyModifiers::HYPER,
                    KeyModifiers::META,
                    KeyModifiers::ALT | KeyModifiers::SHIFT,
                    KeyModifiers::CONTROL | KeyModifiers::SHIFT,
                ] {
                    assert_eq!(with(code, m), None, "{m:?} {code:?}");
                }
            }
        }
    }

    /// Each action is on a help row that has a text and shows the action's first key, and
    /// the overlay lists every row; hints only label rows that show their keys.
    #[test]
    fn every_action_has_help_that_names_its_key() {
        for &a in Action::ALL {
            for (i, b) in BINDINGS.iter().enumerate().filter(|(_, b)| b.action == a) {
                assert_eq!(
                    b.keys.is_empty(),
                    b.help.is_empty(),
                    "{a:?}: keys and help come together, or neither (the row above)"
                );
                let row = help_row(i);
                assert!(!row.help.trim().is_empty(), "{a:?} has no help text");
                let key = label(b.codes[0]);
                assert!(
                    row.keys.split_whitespace().any(|k| k == key),
                    "{a:?}: its help row {:?} does not show its key {key}",
                    row.keys
                );
                assert!(
                    b.hint.is_none() || !b.keys.is_empty(),
                    "{a:?}: a hint needs keys to show"
                );
            }
        }
        let rows: Vec<_> = help_rows().collect();
        let with_keys: Vec<_> = BINDINGS
            .iter()
            .filter(|b| !b.keys.is_empty())
            .map(|b| (b.keys, b.help))
            .collect();
        assert_eq!(rows, with_keys);
    }

    /// Every key of the table, in every mode: the panes act on it; the help closes on it but
    /// quits on quit; the findings overlay takes it as a typed key but `i` and quit; `/`
    /// takes it as a typed key (Enter, Backspace, a character, or none), but Ctrl-C quits.
    #[test]
    fn every_bound_key_in_every_mode_dispatches_by_the_table() {
        let jump = Mode::Jump("4".into());
        for b in BINDINGS {
            for &code in b.codes {
                let key = KeyEvent::new(code, KeyModifiers::NONE);
                let quit = b.action == Action::Quit;
                assert_eq!(
                    dispatch(&Mode::Normal, key),
                    Input::Act(b.action),
                    "{code:?}"
                );
                let help = if quit {
                    Input::Act(Action::Quit)
                } else {
                    Input::Close
                };
                assert_eq!(dispatch(&Mode::Help, key), help, "{code:?}");
                let findings = match b.action {
                    Action::Quit | Action::Findings => Input::Act(b.action),
                    _ => Input::Finding(code.as_char()),
                };
                assert_eq!(dispatch(&Mode::Findings, key), findings, "{code:?}");
                assert_eq!(
                    dispatch(&jump, key),
                    Input::Jump(code.as_char()),
                    "{code:?}"
                );
            }
        }
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        for mode in [Mode::Normal, Mode::Help, Mode::Findings, jump.clone()] {
            assert_eq!(
                dispatch(&mode, ctrl_c),
                Input::Act(Action::Quit),
                "{mode:?}"
            );
        }
    }

    /// Keys the table does not bind: nothing in the panes or the help (the hint bar says
    /// so); typed keys to the findings overlay and to `/`.
    #[test]
    fn unbound_keys_in_every_mode() {
        let key = |code| KeyEvent::new(code, KeyModifiers::NONE);
        let jump = Mode::Jump(String::new());
        for code in [KeyCode::Char('x'), KeyCode::Char('7'), KeyCode::F(5)] {
            assert_eq!(dispatch(&Mode::Normal, key(code)), Input::Unbound);
            assert_eq!(dispatch(&Mode::Help, key(code)), Input::Unbound);
            assert_eq!(
                dispatch(&Mode::Findings, key(code)),
                Input::Finding(code.as_char())
            );
            assert_eq!(dispatch(&jump, key(code)), Input::Jump(code.as_char()));
        }
        assert_eq!(
            dispatch(&jump, key(KeyCode::Enter)),
            Input::Jump(Some('\n'))
        );
        assert_eq!(
            dispatch(&jump, key(KeyCode::Backspace)),
            Input::Jump(Some('\u{8}'))
        );
        // With Alt a digit is still typed; the table binds nothing with Alt.
        let alt_1 = KeyEvent::new(KeyCode::Char('1'), KeyModifiers::ALT);
        assert_eq!(dispatch(&Mode::Findings, alt_1), Input::Finding(Some('1')));
        assert_eq!(dispatch(&jump, alt_1), Input::Jump(Some('1')));
        assert_eq!(dispatch(&Mode::Normal, alt_1), Input::Unbound);
    }

    #[test]
    fn keys_are_named_with_their_modifiers() {
        assert_eq!(
            name(KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE)),
            "x"
        );
        assert_eq!(
            name(KeyEvent::new(
                KeyCode::Char('z'),
                KeyModifiers::CONTROL | KeyModifiers::ALT
            )),
            "Ctrl-Alt-z"
        );
        assert_eq!(
            name(KeyEvent::new(KeyCode::Up, KeyModifiers::ALT)),
            "Alt-Up"
        );
    }
}
