//! Reversi rules on bitboards (in progress).
