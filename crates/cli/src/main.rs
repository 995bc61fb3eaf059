//! The `retro` command line: a thin layer over the libraries.
fn main() {}
