//! The `gcscope` command line. The entry is the only code that uses the dashboard (`gcscope_tui`);
//! the commands are in `cli/`, the work in the library.

#![forbid(unsafe_code)]

mod cli;

/// mimalloc rather than glibc's malloc: a large trace is read on one thread per core, and
/// glibc grows each extra thread's arena with an `mprotect` call per page and hands out fresh,
/// page-faulting memory (3 us a page on the CI VM) where mimalloc reuses its own. `summary`
/// of the 1,000,000-line trace (assets/bench/speed.sh): best of 15 0.141 s -> 0.127 s,
/// median 0.175 s -> 0.149 s.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // `gcscope __supervise ...`: the process between gcscope and a program it runs
    // (gcscope_source::supervise), started by gcscope itself.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args
        .get(1)
        .is_some_and(|a| a == gcscope_source::supervise::ARG)
    {
        gcscope_source::supervise::main(&args[2..]);
    }
    // A program gcscope runs never outlives it: a panic kills them first (the dashboard's own
    // hook, installed later, restores the terminal before this one runs).
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        gcscope_source::child::kill_all();
        previous(info);
    }));
    if let Err(e) = cli::run() {
        std::process::exit(cli::report_error(&e));
    }
}
