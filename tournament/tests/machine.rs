//! The tournament state machine, state by event.

use reversi_tournament::{
    Command, Event, Format, Outcome, Phase, Points, Refusal, Settings, Start, Tournament,
};

fn settings(format: Format, start: Start) -> Settings {
    Settings::new("club night", "reversi", format, "5+3", start, true)
}

fn round_robin() -> Format {
    Format::RoundRobin { double: false }
}

/// A tournament with registration open and `players` registered as p1, p2, ….
fn registered(format: Format, players: usize) -> Tournament {
    let mut t = Tournament::new(settings(format, Start::ByHand));
    t.handle(Event::OpenRegistration).unwrap();
    for i in 1..=players {
        t.handle(Event::Register {
            account: format!("p{i}"),
        })
        .unwrap();
    }
    t
}

fn started_games(commands: &[Command]) -> Vec<(u32, u32, String, String)> {
    commands
        .iter()
        .filter_map(|c| match c {
            Command::StartGame {
                round,
                board,
                first,
                second,
            } => Some((*round, *board, first.clone(), second.clone())),
            _ => None,
        })
        .collect()
}

fn not_now(event: &'static str, phase: &'static str) -> Refusal {
    Refusal::NotNow { event, phase }
}

#[test]
fn created_accepts_only_opening_registration() {
    let mut t = Tournament::new(settings(round_robin(), Start::ByHand));
    assert_eq!(
        t.handle(Event::Register {
            account: "p1".into()
        }),
        Err(not_now("register", "created"))
    );
    assert_eq!(t.handle(Event::Start), Err(not_now("start", "created")));
    assert_eq!(t.handle(Event::Pause), Err(not_now("pause", "created")));
    assert_eq!(t.handle(Event::OpenRegistration), Ok(vec![]));
    assert_eq!(t.phase(), &Phase::Registration { open: true });
}

#[test]
fn registration_registers_each_account_once_and_withdraws() {
    let mut t = registered(round_robin(), 2);
    let again = t.handle(Event::Register {
        account: "p1".into(),
    });
    assert_eq!(
        again,
        Err(Refusal::AlreadyRegistered {
            account: "p1".into()
        })
    );
    t.handle(Event::Withdraw {
        account: "p1".into(),
    })
    .unwrap();
    assert_eq!(t.accounts(), vec!["p2".to_string()]);
    let unknown = t.handle(Event::Withdraw {
        account: "p9".into(),
    });
    assert_eq!(
        unknown,
        Err(Refusal::NotRegistered {
            account: "p9".into()
        })
    );
}

#[test]
fn closed_registration_refuses_entries_until_reopened() {
    let mut t = registered(round_robin(), 2);
    t.handle(Event::CloseRegistration).unwrap();
    assert_eq!(
        t.handle(Event::Register {
            account: "p3".into()
        }),
        Err(Refusal::RegistrationClosed)
    );
    t.handle(Event::OpenRegistration).unwrap();
    assert_eq!(
        t.handle(Event::Register {
            account: "p3".into()
        }),
        Ok(vec![])
    );
}

#[test]
fn starting_needs_two_players() {
    let mut t = registered(round_robin(), 1);
    assert_eq!(
        t.handle(Event::Start),
        Err(Refusal::TooFewPlayers { players: 1 })
    );
    assert_eq!(t.phase(), &Phase::Registration { open: true });
}

#[test]
fn starting_pairs_round_one_from_the_berger_table() {
    let mut t = registered(round_robin(), 4);
    let commands = t.handle(Event::Start).unwrap();
    assert_eq!(commands[0], Command::RoundPaired { round: 1 });
    assert_eq!(
        started_games(&commands),
        vec![
            (1, 1, "p1".into(), "p4".into()),
            (1, 2, "p2".into(), "p3".into())
        ]
    );
    assert_eq!(
        t.phase(),
        &Phase::Running {
            round: 1,
            paused: false
        }
    );
    assert_eq!(
        t.handle(Event::Register {
            account: "p5".into()
        }),
        Err(not_now("register", "running"))
    );
    assert_eq!(t.handle(Event::Start), Err(not_now("start", "running")));
}

#[test]
fn the_next_round_is_paired_when_the_last_game_ends() {
    let mut t = registered(round_robin(), 4);
    t.handle(Event::Start).unwrap();
    let first = t
        .handle(Event::GameEnded {
            round: 1,
            board: 1,
            outcome: Outcome::FirstWins,
        })
        .unwrap();
    assert_eq!(first, vec![]);
    let last = t
        .handle(Event::GameEnded {
            round: 1,
            board: 2,
            outcome: Outcome::Draw,
        })
        .unwrap();
    // Berger round 2 for 4 players: 4-3, 1-2.
    assert_eq!(
        started_games(&last),
        vec![
            (2, 1, "p4".into(), "p3".into()),
            (2, 2, "p1".into(), "p2".into())
        ]
    );
    assert_eq!(
        t.phase(),
        &Phase::Running {
            round: 2,
            paused: false
        }
    );
}

#[test]
fn results_for_unknown_or_finished_games_are_refused() {
    let mut t = registered(round_robin(), 4);
    t.handle(Event::Start).unwrap();
    let unknown = t.handle(Event::GameEnded {
        round: 1,
        board: 3,
        outcome: Outcome::Draw,
    });
    assert_eq!(unknown, Err(Refusal::NoSuchGame { round: 1, board: 3 }));
    t.handle(Event::GameEnded {
        round: 1,
        board: 1,
        outcome: Outcome::Draw,
    })
    .unwrap();
    let again = t.handle(Event::GameEnded {
        round: 1,
        board: 1,
        outcome: Outcome::FirstWins,
    });
    assert_eq!(again, Err(Refusal::AlreadyEnded { round: 1, board: 1 }));
    assert_eq!(t.history().games[0].outcome, Some(Outcome::Draw));
}

#[test]
fn a_paused_tournament_records_results_but_pairs_the_next_round_only_on_resume() {
    let mut t = registered(round_robin(), 4);
    t.handle(Event::Start).unwrap();
    t.handle(Event::Pause).unwrap();
    assert_eq!(t.handle(Event::Pause), Err(not_now("pause", "paused")));
    t.handle(Event::GameEnded {
        round: 1,
        board: 1,
        outcome: Outcome::FirstWins,
    })
    .unwrap();
    let last = t
        .handle(Event::GameEnded {
            round: 1,
            board: 2,
            outcome: Outcome::FirstWins,
        })
        .unwrap();
    assert_eq!(last, vec![]);
    assert_eq!(
        t.phase(),
        &Phase::Running {
            round: 1,
            paused: true
        }
    );
    let resumed = t.handle(Event::Resume).unwrap();
    assert_eq!(resumed[0], Command::RoundPaired { round: 2 });
    assert_eq!(t.handle(Event::Resume), Err(not_now("resume", "running")));
}

#[test]
fn resuming_mid_round_pairs_nothing() {
    let mut t = registered(round_robin(), 4);
    t.handle(Event::Start).unwrap();
    t.handle(Event::Pause).unwrap();
    assert_eq!(t.handle(Event::Resume), Ok(vec![]));
    assert_eq!(
        t.phase(),
        &Phase::Running {
            round: 1,
            paused: false
        }
    );
}

#[test]
fn a_round_robin_withdrawal_forfeits_the_game_in_play_and_the_rest() {
    let mut t = registered(round_robin(), 4);
    t.handle(Event::Start).unwrap();
    t.handle(Event::GameEnded {
        round: 1,
        board: 2,
        outcome: Outcome::Draw,
    })
    .unwrap();
    // p4 withdraws while playing p1 on board 1: p1 wins by forfeit, the round is over, and
    // round 2's game against p4 (4-3) is forfeited without being started.
    let commands = t
        .handle(Event::Withdraw {
            account: "p4".into(),
        })
        .unwrap();
    assert_eq!(
        commands[0],
        Command::StopGame {
            round: 1,
            board: 1,
            loser: "p4".into()
        }
    );
    assert_eq!(
        started_games(&commands),
        vec![(2, 2, "p1".into(), "p2".into())]
    );
    assert_eq!(t.history().games[0].outcome, Some(Outcome::SecondForfeits));
    let forfeited = t
        .history()
        .games
        .iter()
        .find(|g| g.round == 2 && g.board == 1)
        .unwrap();
    assert_eq!(forfeited.outcome, Some(Outcome::FirstForfeits));
    assert_eq!(t.history().points_of(2), Points(1) + Points::WIN);
    let again = t.handle(Event::Withdraw {
        account: "p4".into(),
    });
    assert_eq!(
        again,
        Err(Refusal::AlreadyWithdrawn {
            account: "p4".into()
        })
    );
}

#[test]
fn a_swiss_withdrawal_leaves_the_player_unpaired() {
    let mut t = registered(Format::Swiss { rounds: 3 }, 4);
    t.handle(Event::Start).unwrap();
    t.handle(Event::GameEnded {
        round: 1,
        board: 1,
        outcome: Outcome::FirstWins,
    })
    .unwrap();
    let commands = t
        .handle(Event::Withdraw {
            account: "p2".into(),
        })
        .unwrap();
    // p2 was on board 2 (4-2): p4 wins by forfeit; round 2 pairs the three others, one has a bye.
    assert_eq!(
        commands[0],
        Command::StopGame {
            round: 1,
            board: 2,
            loser: "p2".into()
        }
    );
    let games = started_games(&commands);
    assert_eq!(games.len(), 1);
    assert!(games.iter().all(|(_, _, a, b)| a != "p2" && b != "p2"));
    assert!(commands
        .iter()
        .any(|c| matches!(c, Command::Bye { round: 2, .. })));
}

#[test]
fn a_tick_starts_the_tournament_at_its_start_time() {
    let mut t = Tournament::new(settings(round_robin(), Start::At { unix_seconds: 1000 }));
    t.handle(Event::OpenRegistration).unwrap();
    t.handle(Event::Register {
        account: "a".into(),
    })
    .unwrap();
    t.handle(Event::Register {
        account: "b".into(),
    })
    .unwrap();
    assert_eq!(t.handle(Event::Tick { unix_seconds: 999 }), Ok(vec![]));
    let commands = t.handle(Event::Tick { unix_seconds: 1000 }).unwrap();
    assert_eq!(
        started_games(&commands),
        vec![(1, 1, "a".into(), "b".into())]
    );
    assert_eq!(t.handle(Event::Tick { unix_seconds: 2000 }), Ok(vec![]));
}

#[test]
fn a_tournament_without_players_at_its_start_time_ends() {
    let mut t = Tournament::new(settings(round_robin(), Start::At { unix_seconds: 1000 }));
    t.handle(Event::OpenRegistration).unwrap();
    let commands = t.handle(Event::Tick { unix_seconds: 1000 }).unwrap();
    let early = Some(
        "not started at its start time: a tournament needs at least 2 players, it has 0"
            .to_string(),
    );
    assert_eq!(
        commands,
        vec![Command::Finished {
            early: early.clone()
        }]
    );
    assert_eq!(t.phase(), &Phase::Finished { early });
}

#[test]
fn a_tick_does_nothing_to_a_tournament_started_by_hand() {
    let mut t = registered(round_robin(), 2);
    assert_eq!(
        t.handle(Event::Tick {
            unix_seconds: u64::MAX
        }),
        Ok(vec![])
    );
    assert_eq!(t.phase(), &Phase::Registration { open: true });
}

#[test]
fn the_last_result_finishes_the_tournament() {
    let mut t = registered(round_robin(), 2);
    t.handle(Event::Start).unwrap();
    let commands = t
        .handle(Event::GameEnded {
            round: 1,
            board: 1,
            outcome: Outcome::SecondWins,
        })
        .unwrap();
    assert_eq!(commands, vec![Command::Finished { early: None }]);
    assert_eq!(t.phase(), &Phase::Finished { early: None });
    assert_eq!(
        t.handle(Event::Withdraw {
            account: "p1".into()
        }),
        Err(not_now("withdraw", "finished"))
    );
    assert_eq!(t.handle(Event::Pause), Err(not_now("pause", "finished")));
    assert_eq!(t.standings()[0].seat, 1);
}

#[test]
fn a_swiss_that_cannot_be_paired_ends_early() {
    // Four players, three rounds. Round 1: 1-3 drawn, then 2 withdraws (4 wins 4-2 by forfeit).
    // Round 2 pairs 1, 3 and 4 with a bye; 4 withdraws during it. Round 3 would have to pair 1
    // and 3 again: the tournament ends, saying why.
    let mut t = registered(Format::Swiss { rounds: 3 }, 4);
    t.handle(Event::Start).unwrap();
    let ended = |board| Event::GameEnded {
        round: 1,
        board,
        outcome: Outcome::Draw,
    };
    t.handle(ended(1)).unwrap();
    let round2 = t
        .handle(Event::Withdraw {
            account: "p2".into(),
        })
        .unwrap();
    assert_eq!(started_games(&round2).len(), 1);
    let commands = t
        .handle(Event::Withdraw {
            account: "p4".into(),
        })
        .unwrap();
    let last = commands.last().expect("the tournament ends");
    assert!(
        matches!(last, Command::Finished { early: Some(reason) } if reason.contains("no pairing")),
        "{commands:?}"
    );
    assert!(matches!(t.phase(), Phase::Finished { early: Some(_) }));
}

/// Plays every started game with `decide`, feeding results back until the tournament ends.
fn run(t: &mut Tournament, mut commands: Vec<Command>, decide: impl Fn(&str, &str) -> Outcome) {
    while let Some(command) = commands.pop() {
        if let Command::StartGame {
            round,
            board,
            first,
            second,
        } = command
        {
            let outcome = decide(&first, &second);
            commands.extend(
                t.handle(Event::GameEnded {
                    round,
                    board,
                    outcome,
                })
                .unwrap(),
            );
        }
    }
}

/// The account with the lower number wins.
fn lower_wins(first: &str, second: &str) -> Outcome {
    let number = |s: &str| s[1..].parse::<u32>().unwrap();
    if number(first) < number(second) {
        Outcome::FirstWins
    } else {
        Outcome::SecondWins
    }
}

#[test]
fn a_snapshot_taken_mid_round_carries_on_to_the_same_result() {
    let mut t = registered(Format::Swiss { rounds: 4 }, 7);
    let mut commands = t.handle(Event::Start).unwrap();
    // Play round 1 and half of round 2, then snapshot.
    for _ in 0..5 {
        let Some(index) = commands
            .iter()
            .position(|c| matches!(c, Command::StartGame { .. }))
        else {
            break;
        };
        let Command::StartGame {
            round,
            board,
            first,
            second,
        } = commands.remove(index)
        else {
            unreachable!()
        };
        commands.extend(
            t.handle(Event::GameEnded {
                round,
                board,
                outcome: lower_wins(&first, &second),
            })
            .unwrap(),
        );
    }
    assert_eq!(
        t.phase(),
        &Phase::Running {
            round: 2,
            paused: false
        }
    );
    let snapshot = t.snapshot();
    let mut restored = Tournament::restore(&snapshot).unwrap();
    assert_eq!(restored, t);
    run(&mut t, commands.clone(), lower_wins);
    run(&mut restored, commands, lower_wins);
    assert_eq!(restored.phase(), &Phase::Finished { early: None });
    assert_eq!(restored, t);
    assert_eq!(restored.crosstable().to_text(), t.crosstable().to_text());
}

#[test]
fn a_snapshot_is_refused_when_damaged() {
    let t = registered(round_robin(), 3);
    let snapshot = t.snapshot();
    assert!(Tournament::restore(&snapshot[..snapshot.len() - 1]).is_err());
}

#[test]
fn a_swiss_needs_between_one_round_and_as_many_as_a_round_robin() {
    for (rounds, players, most) in [(0, 4, 3), (4, 4, 3), (6, 5, 5)] {
        let mut t = registered(Format::Swiss { rounds }, players);
        assert_eq!(
            t.handle(Event::Start),
            Err(Refusal::RoundsOutOfRange { rounds, most })
        );
    }
    let mut t = registered(Format::Swiss { rounds: 5 }, 5);
    assert!(t.handle(Event::Start).is_ok());
}
