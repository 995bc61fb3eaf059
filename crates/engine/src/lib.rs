//! retro-engine (under construction).
