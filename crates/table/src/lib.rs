//! retro-table (under construction).
