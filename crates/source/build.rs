//! Whether gobuild.rs's test of real Go binaries can run: see build/real_go.rs.

#[path = "../../build/real_go.rs"]
mod real_go;

fn main() {
    real_go::detect();
}
