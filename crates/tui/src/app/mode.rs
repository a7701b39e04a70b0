//! The dashboard's modes: the panes, or one overlay or input over them. Keys reach a mode
//! through the one table (`keys::dispatch`); the view draws what the mode shows.

use super::App;
use crate::keys::{self, Input};
use crossterm::event::{KeyEvent, KeyEventKind};

/// What keys go to and what is drawn over the panes: one at a time, so no two overlays can
/// be open together and no precedence between them is needed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Mode {
    /// The panes: keys act by the table.
    #[default]
    Normal,
    /// The help overlay (`?`): any action key closes it, except quit.
    Help,
    /// The findings overlay (`i`): 1-9 go to a finding's first evidence cycle; any other key
    /// closes it, except quit.
    Findings,
    /// The tune view (`t`): what another GOGC would cost, by the model, for each side's run;
    /// any action key closes it, except quit.
    Tune,
    /// `/` typed: the digits so far. Enter goes to that cycle; any other key cancels.
    Jump(String),
}

impl App {
    /// A key from the terminal, as the table reads it in the current mode. A release does
    /// nothing; an unbound key's press says so in the hint bar (its repeats do not).
    pub fn key(&mut self, key: KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        match keys::dispatch(&self.mode, key) {
            Input::Act(a) => self.act(a),
            Input::Close => self.mode = Mode::Normal,
            Input::Finding(c) => self.findings_key(c),
            Input::Jump(c) => self.jump_key(c),
            Input::Unbound => {
                if key.kind == KeyEventKind::Press {
                    self.notice = Some(format!(
                        "{}: not a gcscope key; ? lists them",
                        keys::name(key)
                    ));
                }
            }
        }
    }

    /// Open `mode`, or close it if it is open.
    pub(super) fn toggle(&mut self, mode: Mode) {
        self.mode = if self.mode == mode {
            Mode::Normal
        } else {
            mode
        };
    }

    /// A key while the findings overlay is open: 1-9 go to that finding's first evidence
    /// cycle on the focused side (and say which); any key closes the overlay.
    pub fn findings_key(&mut self, c: Option<char>) {
        if self.mode != Mode::Findings {
            return;
        }
        self.mode = Mode::Normal;
        let Some(k) = c.and_then(|c| c.to_digit(10)).filter(|&k| k >= 1) else {
            return;
        };
        let found = self
            .focused()
            .and_then(|p| p.summary.as_ref())
            .and_then(|s| s.findings.get(k as usize - 1))
            .map(|f| (f.id, f.cycles.first().copied()));
        match found {
            Some((id, Some(num))) => {
                self.seek_cycle_number(num);
                self.notice = Some(format!("{id}: gc {num}, its first evidence cycle"));
            }
            Some((id, None)) => {
                self.notice = Some(format!("{id} is about the whole run, not one cycle"));
            }
            None => self.notice = Some(format!("no finding {k}")),
        }
    }

    /// A key typed while `/` waits for a cycle number: a digit (up to ten), Backspace
    /// (`'\u{8}'`), Enter (`'\n'`: go to the first cycle numbered so or above); anything
    /// else cancels.
    pub fn jump_key(&mut self, c: Option<char>) {
        let Mode::Jump(buf) = &mut self.mode else {
            return;
        };
        match c {
            Some(d) if d.is_ascii_digit() && buf.len() < 10 => buf.push(d),
            Some('\u{8}') => {
                buf.pop();
            }
            Some('\n') => {
                let target = buf.parse::<u32>().ok();
                self.mode = Mode::Normal;
                if let Some(num) = target {
                    self.seek_cycle_number(num);
                }
            }
            _ => self.mode = Mode::Normal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::testing::pane;
    use crossterm::event::{KeyCode, KeyEventState, KeyModifiers};

    fn press(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn ctrl_c() -> KeyEvent {
        KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)
    }

    /// Three cycles (gc 1, 2, 3), the last selected.
    fn app() -> App {
        let mut a = App::new(vec![pane(&[0, 10, 20])]);
        a.refresh();
        a
    }

    fn cursor(a: &App) -> usize {
        a.panes[0].cursor.index()
    }

    #[test]
    fn normal_keys_act_and_an_unbound_press_says_so() {
        let mut a = app();
        a.key(press(KeyCode::Char('g')));
        assert_eq!(cursor(&a), 0);
        for (code, mode) in [
            (KeyCode::Char('?'), Mode::Help),
            (KeyCode::Char('i'), Mode::Findings),
            (KeyCode::Char('/'), Mode::Jump(String::new())),
        ] {
            let mut a = app();
            a.key(press(code));
            assert_eq!(a.mode, mode, "{code:?}");
        }
        a.key(press(KeyCode::Char('x')));
        assert_eq!(
            a.notice.as_deref(),
            Some("x: not a gcscope key; ? lists them")
        );
        a.key(KeyEvent::new(KeyCode::Up, KeyModifiers::ALT));
        assert_eq!(
            a.notice.as_deref(),
            Some("Alt-Up: not a gcscope key; ? lists them")
        );
        // A held key's repeats and any release say nothing and do nothing.
        let mut a = app();
        let mut repeat = press(KeyCode::Char('x'));
        repeat.kind = KeyEventKind::Repeat;
        a.key(repeat);
        assert_eq!(a.notice, None);
        let release = KeyEvent {
            kind: KeyEventKind::Release,
            state: KeyEventState::NONE,
            ..press(KeyCode::Char('g'))
        };
        a.key(release);
        assert_eq!((cursor(&a), a.mode.clone()), (2, Mode::Normal));
    }

    /// The help closes on any action key without doing it, stays open on a key that is not
    /// gcscope's (and says so), and quits on q, Esc and Ctrl-C.
    #[test]
    fn help_closes_on_an_action_key_without_acting() {
        let mut a = app();
        a.key(press(KeyCode::Char('?')));
        a.key(press(KeyCode::Char('g')));
        assert_eq!((a.mode.clone(), cursor(&a)), (Mode::Normal, 2));
        a.key(press(KeyCode::Char('h')));
        assert_eq!(a.mode, Mode::Help);
        a.key(press(KeyCode::Char('x')));
        assert_eq!(a.mode, Mode::Help);
        assert!(a.notice.is_some());
        a.key(press(KeyCode::Char('?')));
        assert_eq!(a.mode, Mode::Normal);
        for quit in [press(KeyCode::Char('q')), press(KeyCode::Esc), ctrl_c()] {
            let mut a = app();
            a.key(press(KeyCode::Char('?')));
            a.key(quit);
            assert!(a.quit, "{quit:?}");
        }
    }

    /// The findings overlay: `i` closes it, a digit goes to that finding (this run has none,
    /// and says so), any other key closes it without acting; q, Esc and Ctrl-C quit.
    #[test]
    fn findings_take_every_key_but_their_own_and_quit() {
        let mut a = app();
        a.key(press(KeyCode::Char('i')));
        a.key(press(KeyCode::Char('i')));
        assert_eq!(a.mode, Mode::Normal);
        a.key(press(KeyCode::Char('i')));
        a.key(press(KeyCode::Char('1')));
        assert_eq!(a.mode, Mode::Normal);
        assert_eq!(a.notice.as_deref(), Some("no finding 1"));
        for other in [KeyCode::Char('g'), KeyCode::Char('?'), KeyCode::Left] {
            let mut a = app();
            a.key(press(KeyCode::Char('i')));
            a.key(press(other));
            assert_eq!((a.mode.clone(), cursor(&a)), (Mode::Normal, 2), "{other:?}");
            assert_eq!(a.notice, None, "{other:?}");
        }
        for quit in [press(KeyCode::Char('q')), press(KeyCode::Esc), ctrl_c()] {
            let mut a = app();
            a.key(press(KeyCode::Char('i')));
            a.key(quit);
            assert!(a.quit, "{quit:?}");
        }
    }

    /// `/` takes digits, Backspace and Enter; any other key, q and Esc among them, cancels
    /// it; Ctrl-C quits.
    #[test]
    fn jump_takes_digits_and_any_other_key_cancels_but_ctrl_c_quits() {
        let mut a = app();
        for code in [
            KeyCode::Char('/'),
            KeyCode::Char('1'),
            KeyCode::Char('9'),
            KeyCode::Backspace,
        ] {
            a.key(press(code));
        }
        assert_eq!(a.mode, Mode::Jump("1".into()));
        a.key(press(KeyCode::Enter));
        assert_eq!((a.mode.clone(), cursor(&a)), (Mode::Normal, 0));
        for cancel in [KeyCode::Char('q'), KeyCode::Esc, KeyCode::Char('g')] {
            let mut a = app();
            a.key(press(KeyCode::Char('/')));
            a.key(press(KeyCode::Char('1')));
            a.key(press(cancel));
            assert_eq!(
                (a.mode.clone(), cursor(&a)),
                (Mode::Normal, 2),
                "{cancel:?}"
            );
            assert!(!a.quit, "{cancel:?}");
        }
        let mut a = app();
        a.key(press(KeyCode::Char('/')));
        a.key(ctrl_c());
        assert!(a.quit);
    }

    /// The overlays' own keys called while another mode is on change nothing.
    #[test]
    fn mode_keys_outside_their_mode_do_nothing() {
        let mut a = app();
        a.act(crate::keys::Action::Help);
        a.findings_key(Some('1'));
        a.jump_key(Some('1'));
        assert_eq!(a.mode, Mode::Help);
        assert_eq!(a.notice, None);
    }
}
