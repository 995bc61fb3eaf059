//! retro's commands, written once for every game family, and the registry of the families.
//!
//! A family ([`retro_family::Family`]) says what its variants, tables, positions and moves are; this crate does the
//! rest for all of them alike:
//! - [`generate`]: the tables of a variant and everything they depend on, in dependency order, each solved by the
//!   engine and written, a table already on disk and sound kept (so a killed `generate` continues where it
//!   stopped); then, on request, the census of the positions reachable from the start;
//! - [`probe`]: a position's value, every move's value best first, and the best line;
//! - [`info`]: a table's header, sizes and histogram, or a variant's totals, with the start and the census;
//! - [`verify`]: every checksum, and the engine's certificate over every table of a variant;
//! - [`census`]: the positions reachable from a start, folded and unfolded, with their outcomes;
//! - [`plan`]: every table a `generate` would build, with its memory, disk and time, before building any;
//! - [`slurm`]: the tables of a variant as Slurm jobs, one per table, each after its sub-tables' jobs;
//! - [`registry`]: the families by name, one line each.
//!
//! The engine's hot loops stay generic over the concrete game: the registry hands each command the family's own
//! type, so nothing here goes through dynamic dispatch per position.

pub mod budget;
pub mod build;
pub mod census;
pub mod dense;
pub mod directory;
pub mod generate;
pub mod info;
pub mod json;
pub mod kept;
pub mod plan;
pub mod probe;
pub mod read;
pub mod registry;
pub mod repack;
pub mod slurm;
pub mod value;
pub mod verify;

pub use build::{EngineArgs, parse_size, with_threads};
pub use registry::{Visit, families, visit};
