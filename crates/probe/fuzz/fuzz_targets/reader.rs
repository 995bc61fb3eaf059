//! Any bytes, read as a table file in every way the probe library can (as they are, and with checksums repaired so
//! that mutations reach the parser and the decoder): nothing may panic, hang or allocate without bound.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    retro_probe::fuzz::exercise(data);
});
