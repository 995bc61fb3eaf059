//! retro-graph (under construction).
