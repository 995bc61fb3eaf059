//! retro-chess (under construction).
