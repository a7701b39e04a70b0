//! Whether tests/real_go.rs can run: see build/real_go.rs.

#[path = "build/real_go.rs"]
mod real_go;

fn main() {
    real_go::detect();
}
