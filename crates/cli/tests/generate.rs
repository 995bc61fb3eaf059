//! `retro generate` end to end: options it refuses before building anything.

use std::process::Command;

#[test]
fn a_distance_block_that_is_no_power_of_two_from_1024_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tables");
    // retro's own check answers in one line; clap's (not a number) adds its usage.
    for (value, needle, one_line) in [
        (
            "1000",
            "--distance-block 1000: values per block must be a power of two from 1024",
            true,
        ),
        (
            "512",
            "--distance-block 512: values per block must be a power of two from 1024",
            true,
        ),
        ("33554432", "to 16777216", true),
        ("-5", "--distance-block", false),
        ("many", "--distance-block", false),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_retro"))
            .args(["generate", "chess", "KQvK", "--quiet"])
            .arg(format!("--distance-block={value}"))
            .arg("--out")
            .arg(&out)
            .output()
            .expect("retro runs");
        assert!(!output.status.success(), "{value} was accepted");
        let err = String::from_utf8(output.stderr).unwrap();
        assert!(err.contains(needle), "{value}: {err}");
        assert!(!err.contains("panicked"), "{value}: {err}");
        if one_line {
            assert_eq!(err.trim_end().lines().count(), 1, "{value}: {err}");
        }
        assert!(!out.exists(), "{value}: the output directory was made");
    }
}
