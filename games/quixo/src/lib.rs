//! quixo for retro (being written).
