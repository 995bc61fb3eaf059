//! retro-dobutsu (under construction).
