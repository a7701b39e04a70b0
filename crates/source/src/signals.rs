//! The signals that end gcscope's waiting loops (the dashboard's and headless `run`'s and
//! `ab`'s): one set, one implementation, so every front end stops the same way on the same
//! signals and tells its caller which one it was.

/// A loop was ended by a signal (its number): the terminal was restored (the dashboard) and the
/// program stopped; the caller exits with 128 + the number, as a shell reports a process the
/// signal stopped.
#[derive(Debug)]
pub struct Interrupted(pub i32);

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "stopped by signal {}", self.0)
    }
}

impl std::error::Error for Interrupted {}

/// The signals that end the dashboard and headless runs: each restores the terminal on its way
/// out (the default action of SIGINT, SIGHUP and SIGQUIT would leave it raw, in the alternate
/// screen) or lets a headless run print its summary.
pub struct Signals {
    #[cfg(unix)]
    streams: Vec<(i32, tokio::signal::unix::Signal)>,
}

impl Signals {
    pub fn new() -> std::io::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let mut streams = Vec::new();
            for (n, kind) in [
                (libc::SIGINT, SignalKind::interrupt()),
                (libc::SIGTERM, SignalKind::terminate()),
                (libc::SIGHUP, SignalKind::hangup()),
                (libc::SIGQUIT, SignalKind::quit()),
            ] {
                streams.push((n, signal(kind)?));
            }
            Ok(Signals { streams })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    /// The next signal's number.
    pub async fn recv(&mut self) -> i32 {
        #[cfg(unix)]
        {
            let next = futures::future::select_all(
                self.streams
                    .iter_mut()
                    .map(|(n, s)| Box::pin(async move { s.recv().await.map(|_| *n) })),
            );
            match next.await.0 {
                Some(n) => n,
                None => std::future::pending().await,
            }
        }
        #[cfg(not(unix))]
        std::future::pending().await
    }
}
