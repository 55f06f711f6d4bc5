//! Every rule of Foxes & Dolphins with a position that shows it.

use crate::bot::RandomBot;
use crate::game::{Action, Game, Outcome, Point, Team, Timer, Viewer};
use crate::record::{How, RecordMeta};

use super::arena::play_out;
use super::letters::picture;
use super::*;

const FOXES: Team = Team::FIRST;
const DOLPHINS: Team = Team::SECOND;
const T: Timing = Timing::STANDARD;

/// Every kind of tile: the seed's example move is the dolphin on 4 1 eating
/// the fox swimming on 4 2.
fn rules_board() -> Foxes {
    Foxes::from_board(
        picture(
            "
              WWWWWWWWWW
              WWWWWWWWWW
              GWWWWWWWWW
              WWWWWWWWWW
              WWWWWWWWWW
              WWGWLLLWWW
              WWWWLFLEWW
              WWDDLFLWWW
              WWWGLLLWWW
              WWWDWWWWWW
            ",
        ),
        T,
    )
}

fn step(x1: u8, y1: u8, x2: u8, y2: u8) -> Action {
    Action::Move(vec![Point::new(x1, y1), Point::new(x2, y2)])
}

fn refused(team: Team, action: Action) -> String {
    rules_board().play(team, &action, 0).unwrap_err().0
}

#[test]
fn the_seeds_example_move_is_one_step_and_the_dolphin_eats_in_water() {
    // The seed's adjacency (from.1 - to.1 + from.2 - to.2 = 1) refuses its own
    // example: 4 - 4 + 1 - 2 = -1. With distances it is one step.
    let mut game = rules_board();
    let update = game.play(DOLPHINS, &step(4, 1, 4, 2), 0).unwrap();
    assert_eq!(update.moved.unwrap().notation, "4,1x4,2");
    assert_eq!(update.news.as_deref(), Some("a dolphin eats a fox on 4 2"));
    let letters = game.board().letters();
    assert_eq!(&letters[3..4], "W", "4 1 is empty water");
    assert_eq!(&letters[13..14], "D", "4 2 holds the dolphin");
    assert_eq!(game.board().count(Species::Fox), 4);
}

#[test]
fn a_step_goes_to_one_of_the_four_neighbours() {
    assert!(refused(DOLPHINS, step(4, 1, 4, 3)).contains("one step"));
    assert!(refused(DOLPHINS, step(4, 1, 5, 2)).contains("one step"));
    assert!(refused(DOLPHINS, step(4, 1, 4, 1)).contains("one step"));
    assert!(refused(DOLPHINS, step(4, 1, 4, 11)).contains("not on the board"));
    let mut game = rules_board();
    game.play(FOXES, &step(6, 4, 6, 5), 0).unwrap();
}

#[test]
fn an_animal_never_steps_onto_its_own_kind_nor_moves_the_other_species() {
    assert_eq!(refused(FOXES, step(6, 4, 6, 3)), "a fox is already on 6 3");
    assert_eq!(
        refused(DOLPHINS, step(4, 3, 3, 3)),
        "a dolphin is already on 3 3"
    );
    assert_eq!(refused(FOXES, step(4, 1, 5, 1)), "there is no fox on 4 1");
    assert_eq!(
        refused(DOLPHINS, step(6, 4, 6, 5)),
        "there is no dolphin on 6 4"
    );
    assert_eq!(
        refused(Team(2), step(6, 4, 6, 5)),
        "only foxes and dolphins play"
    );
}

#[test]
fn dolphins_swim_water_to_water_only() {
    assert_eq!(
        refused(DOLPHINS, step(4, 3, 5, 3)),
        "a dolphin cannot move onto land"
    );
    assert_eq!(
        refused(DOLPHINS, step(8, 4, 9, 4)),
        "a dolphin stranded on land cannot move"
    );
    rules_board().play(DOLPHINS, &step(4, 3, 4, 4), 0).unwrap();
}

#[test]
fn foxes_keep_within_two_steps_of_land() {
    // From land into the water, and on within two steps of land.
    let mut game = rules_board();
    game.play(FOXES, &step(6, 4, 6, 5), 0).unwrap();
    game.play(FOXES, &step(4, 2, 3, 2), 500).unwrap();
    // 3 5 is two steps from land (5 5): one step further out is refused.
    assert_eq!(
        refused(FOXES, step(3, 5, 2, 5)),
        "a fox never swims more than 2 steps from land"
    );
    assert_eq!(
        refused(FOXES, step(3, 5, 3, 6)),
        "a fox never swims more than 2 steps from land"
    );
    rules_board().play(FOXES, &step(3, 5, 4, 5), 0).unwrap();
    // A fox the tide left farther out cannot move at all.
    assert!(refused(FOXES, step(1, 8, 1, 7)).starts_with("this fox is too far out"));
}

#[test]
fn a_fox_never_attacks_a_dolphin_in_the_water_but_eats_one_on_land() {
    assert_eq!(
        refused(FOXES, step(4, 2, 4, 1)),
        "a fox cannot attack a dolphin in the water"
    );
    let mut game = rules_board();
    game.play(FOXES, &step(6, 4, 7, 4), 0).unwrap();
    let update = game.play(FOXES, &step(7, 4, 8, 4), 500).unwrap();
    assert_eq!(update.moved.unwrap().notation, "7,4x8,4");
    assert_eq!(game.board().count(Species::Dolphin), 3);
}

#[test]
fn every_attempt_legal_or_not_starts_the_players_own_cooldown() {
    let mut game = rules_board();
    assert!(game.may_move(FOXES, 0) && game.may_move(DOLPHINS, 0));
    game.play(FOXES, &step(6, 4, 6, 5), 0).unwrap();
    assert!(!game.may_move(FOXES, 499));
    assert!(
        game.may_move(DOLPHINS, 1),
        "the dolphins' time is their own"
    );
    let early = game.play(FOXES, &step(6, 5, 6, 6), 499).unwrap_err();
    assert_eq!(
        early.0,
        "wait 1 ms: a player moves at most once every 500 ms"
    );
    assert_eq!(
        game.ready_at(FOXES),
        Some(500),
        "an early attempt changes nothing"
    );
    // An illegal attempt once the cooldown is over costs a whole cooldown.
    let before = game.board().clone();
    game.play(FOXES, &step(6, 3, 6, 5), 600).unwrap_err();
    assert_eq!(game.board(), &before);
    assert_eq!(game.ready_at(FOXES), Some(1100));
    assert!(!game.may_move(FOXES, 1099) && game.may_move(FOXES, 1100));
    assert!(game.play(FOXES, &Action::OfferDraw, 1100).is_err());
    assert_eq!(game.ready_at(FOXES), Some(1600));
    // The dolphins' attempts never touch the foxes' time (the seed set Player1Time).
    game.play(DOLPHINS, &step(4, 3, 4, 4), 700).unwrap();
    assert_eq!(game.ready_at(DOLPHINS), Some(1200));
    assert_eq!(game.ready_at(FOXES), Some(1600));
    assert_eq!(game.history().len(), 2);
}

#[test]
fn the_game_wakes_for_cooldowns_tides_and_the_quiet_limit() {
    let mut game = rules_board();
    assert_eq!(game.wake_at(), Some(T.tide_period));
    game.play(FOXES, &step(6, 4, 6, 5), 0).unwrap();
    assert_eq!(game.wake_at(), Some(T.cooldown));
    assert!(game.wake(T.cooldown).is_empty());
    assert_eq!(game.wake_at(), Some(T.tide_period));
}

#[test]
fn tides_follow_the_floodstate_and_keep_the_island_whole() {
    let size = Size::new(10).unwrap();
    let mut game = Foxes::new(size, 77, T);
    let n = 10;
    let mut land = game.board().terrain().land_count();
    assert_eq!(land, 30, "three tenths of the board");
    let foxes_before = game.board().count(Species::Fox);
    // floodstate 1, 2: the water rises; 3, 4, 5: it falls; 0: it rises.
    for (k, (state, change)) in [(1, -n), (2, -n), (3, n), (4, n), (5, n), (0, -n), (1, -n)]
        .into_iter()
        .enumerate()
    {
        let at = (k as u64 + 1) * T.tide_period;
        assert_eq!(game.wake_at(), Some(at));
        let updates = game.wake(at);
        assert_eq!(updates.len(), 1);
        assert_eq!(game.floodstate(), state);
        let now = game.board().terrain().land_count();
        assert_eq!(now as i64 - land as i64, change, "tide {k}");
        land = now;
        assert!(game.board().terrain().is_connected());
        let update = &updates[0];
        assert_eq!(update.cells.len(), 10);
        assert!(update.moved.is_none());
        let square = if change < 0 { "water" } else { "land" };
        assert!(update.cells.iter().all(|c| c.square == square));
    }
    assert_eq!(
        game.board().count(Species::Fox),
        foxes_before,
        "tides eat nothing"
    );
    // A late wake brings every tide that fell due.
    assert_eq!(game.wake(10 * T.tide_period).len(), 3);
}

#[test]
fn eating_the_last_of_a_species_wins() {
    let mut game = Foxes::from_board(
        picture(
            "
              WWWWWWWWWW
              WWWWWWWWWW
              WWWWWWWWWW
              WWWWWWWWWW
              WWWWWWWWWW
              WWWWLLLWWW
              WWWWLLFEWW
              WWWWLLLWWW
              WWWWWWWWWW
              WWWWWWWWWW
            ",
        ),
        T,
    );
    game.play(FOXES, &step(7, 4, 8, 4), 0).unwrap();
    assert_eq!(
        game.outcome(),
        Some(&Outcome::Win {
            team: FOXES,
            why: "the last dolphin was eaten on 8 4".into()
        })
    );
    assert!(!game.may_move(FOXES, 10_000));
    assert_eq!(game.wake_at(), None);
    assert!(game.wake(50_000).is_empty());
    let late = game.play(DOLPHINS, &step(1, 1, 1, 2), 50_000);
    assert_eq!(late.unwrap_err().0, "the game is over");
    assert!(game.legal_actions(FOXES).is_empty());
}

#[test]
fn nothing_eaten_for_the_quiet_limit_ends_the_game_by_numbers() {
    let mut game = rules_board(); // 5 foxes, 4 dolphins
    assert_eq!(game.wake_at(), Some(T.tide_period));
    let tides = game.wake(T.quiet_limit - 1).len();
    assert_eq!(tides, 11);
    assert!(game.outcome().is_none());
    assert_eq!(game.wake_at(), Some(T.quiet_limit));
    assert!(
        game.wake(T.quiet_limit).is_empty(),
        "no tide at the deadline"
    );
    assert_eq!(
        game.outcome(),
        Some(&Outcome::Win {
            team: FOXES,
            why: "nothing eaten for 120 s: 5 foxes, 4 dolphins".into()
        })
    );
    // Eating moves the deadline.
    let mut game = rules_board();
    game.play(DOLPHINS, &step(4, 1, 4, 2), 1000).unwrap();
    game.wake(T.quiet_limit);
    assert!(game.outcome().is_none());
    game.wake(T.quiet_limit + 1000);
    assert!(matches!(game.outcome(), Some(Outcome::Draw { .. })));
}

/// The game's timers, as (name, due).
fn timers(game: &Foxes) -> Vec<(&'static str, Option<u64>)> {
    game.timers().iter().map(|t| (t.name, t.due)).collect()
}

#[test]
fn the_timers_show_the_next_tide_and_the_quiet_limit_and_stop_at_the_end() {
    let mut game = rules_board();
    let [tide, quiet]: [Timer; 2] = game.timers().try_into().unwrap();
    assert_eq!((tide.name, tide.text), ("tide", "the tide turns"));
    assert_eq!(
        (quiet.name, quiet.text),
        ("quiet", "the game ends on numbers if nothing is eaten")
    );
    assert_eq!(
        timers(&game),
        [
            ("tide", Some(T.tide_period)),
            ("quiet", Some(T.quiet_limit))
        ]
    );
    // A step that eats nothing changes neither; a tide moves the tide's, eating the quiet one.
    game.play(FOXES, &step(6, 4, 6, 5), 0).unwrap();
    game.wake(T.tide_period);
    assert_eq!(
        timers(&game),
        [
            ("tide", Some(2 * T.tide_period)),
            ("quiet", Some(T.quiet_limit))
        ]
    );
    game.play(DOLPHINS, &step(4, 1, 4, 2), 12_000).unwrap();
    assert_eq!(timers(&game)[1], ("quiet", Some(12_000 + T.quiet_limit)));
    game.wake(12_000 + T.quiet_limit);
    assert!(game.outcome().is_some());
    assert_eq!(timers(&game), [("tide", None), ("quiet", None)]);
}

#[test]
fn a_new_game_follows_its_seed() {
    let size = Size::DEFAULT;
    let game = Foxes::new(size, 42, T);
    let board = game.board();
    let n = usize::from(size.get());
    assert_eq!(board.count(Species::Fox), n);
    assert_eq!(board.count(Species::Dolphin), n);
    let terrain = board.terrain();
    assert!(board.tiles_of(Species::Fox).all(|i| terrain.is_land(i)));
    assert!(board
        .tiles_of(Species::Dolphin)
        .all(|i| !terrain.is_land(i)));
    assert!(terrain.is_connected());
    assert_eq!(terrain.land_count(), 120);
    assert_eq!(Foxes::new(size, 42, T).board(), board);
    assert_ne!(Foxes::new(size, 43, T).board(), board);
    assert_eq!(game.seed(), Some(42));
    let module = &super::MODULE;
    let settings = crate::game::Settings {
        seed: 42,
        ..Default::default()
    };
    assert_eq!(
        (module.new_game)(&settings).view(Viewer::Spectator),
        game.view(Viewer::Spectator)
    );
}

#[test]
fn the_server_settings_choose_the_times() {
    let module = &super::MODULE;
    let quick = Timing {
        cooldown: 20,
        tide_period: 300,
        quiet_limit: 3000,
    };
    let options = [
        "foxes.cooldown-ms=20",
        "foxes.TIDE-ms=300",
        "Foxes.quiet-ms=3000",
    ]
    .map(|text| crate::registry::game_option(text).unwrap());
    let settings = crate::game::Settings {
        seed: 7,
        ..module.settings(&options)
    };
    assert_eq!(Timing::from_params(&settings.params), quick);
    let mut game = (module.new_game)(&settings);
    assert_eq!(game.wake_at(), Some(300), "the first tide");
    let _ = game.play(FOXES, &step(1, 1, 1, 1), 0);
    assert!(!game.may_move(FOXES, 19));
    assert!(game.may_move(FOXES, 20));
    game.wake(3000);
    let why = game.outcome().expect("the quiet limit").why().to_owned();
    assert!(why.starts_with("nothing eaten for 3 s: "), "{why}");
    let mut odd = Foxes::new(
        Size::DEFAULT,
        7,
        Timing {
            quiet_limit: 1500,
            ..quick
        },
    );
    odd.wake(1500);
    let why = odd.outcome().expect("the quiet limit").why();
    assert!(why.starts_with("nothing eaten for 1500 ms: "), "{why}");
    assert_eq!(Timing::from_params(&Default::default()), T);
    assert_eq!(module.settings(&[]), crate::game::Settings::default());
}

#[test]
fn every_viewer_sees_the_whole_board_and_a_client_can_rebuild_it() {
    let game = Foxes::new(Size::new(15).unwrap(), 5, T);
    let all = game.view(Viewer::Spectator);
    assert_eq!(all.len(), 225);
    assert_eq!(game.view(Viewer::Team(FOXES)), all);
    assert_eq!(game.view(Viewer::Team(DOLPHINS)), all);
    let copy = Foxes::from_board(Board::from_cells(&all).unwrap(), T);
    assert_eq!(copy.board(), game.board());
    assert_eq!(copy.legal_actions(FOXES), game.legal_actions(FOXES));
    assert_eq!(copy.seed(), None);
}

#[test]
fn the_own_notation_reads_back() {
    let game = rules_board();
    assert_eq!(game.parse_action("4,1x4,2").unwrap(), step(4, 1, 4, 2));
    assert_eq!(game.parse_action("4 1 4 2").unwrap(), step(4, 1, 4, 2));
    assert!(game.parse_action("4,1").is_err());
}

fn meta(game: &Foxes) -> RecordMeta {
    RecordMeta {
        players: vec!["f".into(), "d".into()],
        finished: std::time::UNIX_EPOCH,
        outcome: game.outcome().cloned(),
        how: How::OnTheBoard,
        time_control: None,
        times: Vec::new(),
    }
}

#[test]
fn random_games_end_and_their_records_replay_them() {
    for seed in 1..=6 {
        let mut game = Foxes::new(Size::new(10).unwrap(), seed, T);
        let (mut a, mut b) = (RandomBot::new(seed), RandomBot::new(seed + 100));
        let outcome = play_out(&mut game, [&mut a, &mut b], 4 * 3_600_000);
        assert!(outcome.is_some(), "seed {seed} did not end");
        let record = game.record(&meta(&game));
        assert!(record.contains(&format!("[Seed \"{seed}\"]")));
        assert!(record.contains("[Size \"10\"]"));
        let again = replay(&record).unwrap();
        assert_eq!(again.board(), game.board(), "seed {seed}");
        assert_eq!(again.history(), game.history());
        assert_eq!(again.events(), game.events());
    }
}

#[test]
fn a_bad_record_says_which_line() {
    let mut game = rules_board();
    game.play(FOXES, &step(6, 4, 6, 5), 0).unwrap();
    let record = game.record(&meta(&game));
    assert!(replay(&record).is_ok());
    let bad = record.replace("foxes 6,4-6,5", "foxes 6,4-6,7");
    assert!(replay(&bad)
        .unwrap_err()
        .0
        .contains("record line \"0 foxes 6,4-6,7\""));
    assert!(replay("").unwrap_err().0.contains("no Start tag"));
}
