//! Tournaments for any two-player game: pairings, standings and the tournament's life, as pure
//! code that the server drives (it starts the games and reports their results). See
//! spec/TOURNAMENTS.md for what players and organisers see.
//!
//! # Formats
//!
//! - **Round-robin**, single or double, from the Berger tables of FIDE Handbook C.05 Annex 1
//!   ([`round_robin`]). In a double round-robin the second cycle repeats the first with the sides
//!   swapped, and the first cycle's last two rounds are swapped as Annex 1 recommends. With an odd
//!   number of players the one meeting the dummy rests that round and scores nothing for it.
//! - **Swiss** over a fixed number of rounds, after the FIDE Dutch system, C.04.3 ([`swiss`]).
//!
//! # The Dutch system: what is followed, what is simplified
//!
//! Followed exactly:
//! - the absolute criteria: no two players meet twice (C1); a player who has had a bye or a
//!   forfeit win does not get the bye (C2, C.04.1); two players whose absolute colour preferences
//!   are the same side never meet (C3) — so no one's colour difference leaves ±2 and no one plays
//!   the same side three times running. The last round's exception for top scorers is not made.
//! - the ranking order (A.2: score, then pairing number), colour differences and preferences
//!   (A.6: absolute, strong, mild), and the colour allocation rules E.1–E.5;
//! - the first round: S1 against S2 by pairing number, sides alternating from board 1 with the
//!   side drawn by lot ([`Settings::initial_side`]);
//! - the bye to the lowest ranked player who may have one and whose absence leaves the rest
//!   pairable; C.04.2's board order.
//!
//! Simplified: the quality criteria's optimisation. Instead of comparing whole candidate
//! pairings by C.04.3's ordered criteria (fewest downfloaters, smallest score differences, colour
//! criteria, float history), the search pairs the highest ranked unpaired player first, trying
//! opponents in the Dutch order — its S2 counterpart in its score bracket, then the rest of S2,
//! then S1 from the bottom, those giving both players their preferred side ahead of the others —
//! then lower brackets, highest first; it backtracks only when the absolute criteria leave some
//! players unpairable. It therefore always finds a legal pairing when one exists, and follows the
//! Dutch pairing in the ordinary cases (homogeneous brackets, one floater), but may choose
//! different floaters or transpositions than a certified Dutch program where those criteria
//! conflict. Float history (no downfloat two rounds running) is not considered.
//! The search is bounded ([`swiss::SEARCH_BUDGET`] tries a round) so that it never stalls the
//! server; past it the tournament finishes early, saying why.
//!
//! # Standings
//!
//! Points (a win 1, a draw ½, in [`Points`]' half points), then the tie-breaks of the FIDE
//! Tie-Break Regulations (C.07): Sonneborn-Berger (article 9.1) for round-robins; Buchholz Cut-1,
//! Buchholz and Buchholz Median-1 (articles 8.1 and 14) for Swiss. Unplayed rounds (article 16)
//! are simplified: for Buchholz a player's own bye or forfeit counts its own final score (the
//! dummy opponent of 16.4, without its cap); opponents' scores are their actual scores (16.3's
//! adjustment is not made); Sonneborn-Berger counts played games only. Players that no tie-break
//! separates share a rank and are listed by pairing number (C.07 would draw lots).
//!
//! # Withdrawals
//!
//! A player withdrawn during the tournament loses its unfinished game by forfeit. In a Swiss it is
//! not paired again; in a round-robin its remaining games are forfeited as their rounds come (the
//! rule that annuls a withdrawn player's results when it played less than half its games is not
//! applied).

pub mod colour;
pub mod crosstable;
pub mod machine;
pub mod record;
pub mod round_robin;
pub mod settings;
pub mod standings;
pub mod swiss;

pub use crosstable::{Cell, Crosstable, Row};
pub use machine::{Command, Entrant, Event, Phase, Refusal, Tournament};
pub use record::{ByeRecord, ByeScore, GameRecord, History, Outcome, Points, Seat, Side};
pub use settings::{Format, Settings, Start};
pub use standings::{standings, Standing, TieBreak};
