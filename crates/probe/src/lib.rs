//! retro-probe (under construction).
