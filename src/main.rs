//! The `gcscope` command line. The entry is the only code that uses the dashboard (`ui`);
//! the commands are in `cli/`, the work in the library.

mod cli;

/// mimalloc rather than glibc's malloc: a large trace is read on one thread per core, and
/// glibc grows each extra thread's arena with an `mprotect` call per page and hands out fresh,
/// page-faulting memory (3 us a page on the CI VM) where mimalloc reuses its own. `summary`
/// of the 1,000,000-line trace (assets/bench/speed.sh): best of 15 0.141 s -> 0.127 s,
/// median 0.175 s -> 0.149 s.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    if let Err(e) = cli::run() {
        std::process::exit(cli::report_error(&e));
    }
}
