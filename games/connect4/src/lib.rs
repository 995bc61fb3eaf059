//! connect4 for retro (being written).
