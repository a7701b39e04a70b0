// Shared by the build scripts of the packages whose tests can use a real Go toolchain (the
// root package's tests/real_go.rs, gcscope-source's build-info test): it sets `cfg(real_go)`
// when one answers `go version`, so those tests run, and otherwise they are *ignored* with the
// reason, which `cargo test` prints, rather than passing without having run. It only looks:
// the build and the other tests never need Go.

/// `GCSCOPE_GO` if set, else `go` on PATH.
fn go_tool() -> Option<std::path::PathBuf> {
    if let Some(g) = std::env::var_os("GCSCOPE_GO") {
        return Some(g.into());
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join("go"))
        .find(|p| p.is_file())
}

pub fn detect() {
    println!("cargo::rustc-check-cfg=cfg(real_go)");
    println!("cargo::rerun-if-env-changed=GCSCOPE_GO");
    println!("cargo::rerun-if-env-changed=PATH");
    let answers = go_tool().is_some_and(|go| {
        std::process::Command::new(go)
            .arg("version")
            .env("GOTOOLCHAIN", "local")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if answers {
        println!("cargo::rustc-cfg=real_go");
    }
}
