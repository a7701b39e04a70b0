//! The program a command runs, through the wrappers people put in front of it: `env`,
//! `nice`, `taskset`, `timeout`, `time`, `nohup`, `exec`, `stdbuf`, and `sh -c '...'`. The
//! build info (Go version, Green Tea) and the gctrace level are read from that program, not
//! from the wrapper.

/// Words of a shell command, as `sh` splits them: whitespace outside quotes separates,
/// single quotes keep everything, double quotes keep all but `\` before `"`, `\` and `$`, a
/// backslash outside quotes keeps the next character. Expansions are not performed.
#[must_use]
pub fn shell_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' if matches!(chars.peek(), Some('"' | '\\' | '$')) => {
                            if let Some(n) = chars.next() {
                                word.push(n);
                            }
                        }
                        _ => word.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    word.push(n);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            // A command list or pipeline: the program is in the first command.
            ';' | '|' | '&' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                }
                return words;
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// An environment assignment (`GOGC=50`), not a program path.
fn assignment(w: &str) -> bool {
    w.split_once('=')
        .is_some_and(|(k, _)| !k.is_empty() && !k.contains('/'))
}

/// Options of a wrapper that take a value, so that value is not the program.
fn takes_value(wrapper: &str, opt: &str) -> bool {
    match wrapper {
        "env" => matches!(opt, "-u" | "--unset" | "-C" | "--chdir" | "-S"),
        "nice" => matches!(opt, "-n" | "--adjustment"),
        "timeout" => matches!(opt, "-s" | "--signal" | "-k" | "--kill-after"),
        "time" => matches!(opt, "-f" | "--format" | "-o" | "--output"),
        "stdbuf" => matches!(opt, "-i" | "-o" | "-e"),
        _ => false,
    }
}

/// The program a command's words run, through wrappers; `None` when there is none (an
/// empty command, a shell script given as `sh -c` with no program in it).
#[must_use]
pub fn program(words: &[String]) -> Option<String> {
    let mut i = 0;
    // The depth guards against `sh -c 'sh -c ...'` without end.
    for _ in 0..8 {
        while words.get(i).is_some_and(|w| assignment(w)) {
            i += 1;
        }
        let w = words.get(i)?;
        let name = w.rsplit('/').next().unwrap_or(w);
        match name {
            "sh" | "bash" | "dash" | "zsh" => {
                // `sh -c 'SCRIPT'`: the program is the script's; `sh FILE`: a script.
                let c = words[i + 1..].iter().position(|a| a == "-c")?;
                let script = words.get(i + 1 + c + 1)?;
                return program(&shell_words(script));
            }
            "exec" | "nohup" | "command" => i += 1,
            "env" | "nice" | "timeout" | "time" | "taskset" | "stdbuf" | "chrt" => {
                i += 1;
                let mut positional = 0;
                // timeout takes a duration, taskset a mask, chrt a priority before the
                // program.
                let needs = match name {
                    "timeout" | "taskset" | "chrt" => 1,
                    _ => 0,
                };
                while let Some(a) = words.get(i) {
                    if a == "--" {
                        i += 1;
                        break;
                    }
                    if a.starts_with('-') && a.len() > 1 {
                        let has_inline = a.contains('=')
                            || (name == "nice" && a[1..].chars().all(|c| c.is_ascii_digit()));
                        i += if takes_value(name, a) && !has_inline {
                            2
                        } else {
                            1
                        };
                        continue;
                    }
                    if name == "env" && assignment(a) {
                        i += 1;
                        continue;
                    }
                    if positional < needs {
                        positional += 1;
                        i += 1;
                        continue;
                    }
                    break;
                }
            }
            _ => return Some(w.clone()),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(cmd: &str) -> Option<String> {
        program(&shell_words(cmd))
    }

    #[test]
    fn the_program_is_found_behind_common_wrappers() {
        for (cmd, want) in [
            ("./prog -x", "./prog"),
            ("GOGC=50 ./prog", "./prog"),
            ("/usr/bin/time -f wall=%e ./prog -n 3", "./prog"),
            ("time -p ./prog", "./prog"),
            ("env -u GODEBUG GOGC=off ./prog", "./prog"),
            ("nice -n 10 ./prog", "./prog"),
            ("nice -5 ./prog", "./prog"),
            ("taskset -c 0,1 ./prog", "./prog"),
            ("timeout -k 5 30s ./prog", "./prog"),
            ("exec ./prog", "./prog"),
            ("nohup ./prog", "./prog"),
            ("stdbuf -oL ./prog", "./prog"),
            ("sh -c 'exec ./prog --flag'", "./prog"),
            ("bash -c \"GOGC=25 exec /tmp/my prog\"", "/tmp/my"),
            ("sh -c 'cd /tmp && ./prog'", "cd"),
            (
                "/usr/bin/time -f '%e %M' taskset -c 1 ./bin/srv",
                "./bin/srv",
            ),
        ] {
            assert_eq!(of(cmd).as_deref(), Some(want), "{cmd}");
        }
        assert_eq!(of(""), None);
        assert_eq!(of("env"), None);
    }

    #[test]
    fn shell_words_follow_sh_quoting() {
        assert_eq!(
            shell_words(r#"a 'b c' "d \"e\"" f\ g"#),
            ["a", "b c", "d \"e\"", "f g"]
        );
        assert_eq!(shell_words("./prog; echo done"), ["./prog"]);
    }
}
