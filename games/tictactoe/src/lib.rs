//! tictactoe for retro (being written).
