//! What organisers and players ask of the director, read from the words after
//! `GAME TOURNAMENT` (text protocol) or `reversid tournament` (command line): one reading for
//! both, so that they cannot drift apart. spec/TOURNAMENTS.md §7.

use reversi_tournament::{ByeScore, Format, Settings, Start};

/// One request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Order {
    Create(Settings),
    Open(u64),
    Close(u64),
    Start(u64),
    Pause(u64),
    Resume(u64),
    /// The organiser withdraws `account`.
    Remove {
        id: u64,
        account: String,
    },
    /// The asking account registers, or withdraws itself.
    Register(u64),
    Withdraw(u64),
}

/// What a connection asks about tournaments (TOURNAMENTS.md §7).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// `GAME TOURNAMENTS`
    List,
    /// `GAME STANDINGS id`
    Standings(u64),
    /// `GAME TOURNAMENT PLAY id`: the signed-in account waits, here, for its games of
    /// tournament `id` (no handshake timeout while it waits).
    Play(u64),
    /// `GAME TOURNAMENT …`
    Order(Order),
}

impl Order {
    /// Whether only the tournament's organiser (or the operator) may give it.
    pub fn organisers_only(&self) -> bool {
        !matches!(self, Order::Register(_) | Order::Withdraw(_))
    }
}

/// Reads `words` (the verb first: `CREATE name=… …`, `OPEN 3`, `REMOVE 3 alice`); the error
/// says what was wrong.
pub fn read(words: &[&str]) -> Result<Order, String> {
    let (verb, rest) = words
        .split_first()
        .ok_or("a tournament order needs a verb: CREATE, OPEN, CLOSE, START, PAUSE, RESUME, REMOVE, REGISTER or WITHDRAW")?;
    let verb = verb.to_ascii_uppercase();
    if verb == "CREATE" {
        return create(rest).map(Order::Create);
    }
    let id = match rest.first() {
        Some(id) => id
            .parse::<u64>()
            .map_err(|_| format!("{id:?} is not a tournament's number"))?,
        None => return Err(format!("{verb} needs a tournament's number")),
    };
    let order = match (verb.as_str(), &rest[1..]) {
        ("OPEN", []) => Order::Open(id),
        ("CLOSE", []) => Order::Close(id),
        ("START", []) => Order::Start(id),
        ("PAUSE", []) => Order::Pause(id),
        ("RESUME", []) => Order::Resume(id),
        ("REGISTER", []) => Order::Register(id),
        ("WITHDRAW", []) => Order::Withdraw(id),
        ("REMOVE", [account]) => Order::Remove {
            id,
            account: (*account).to_owned(),
        },
        ("REMOVE", _) => return Err("REMOVE takes a tournament's number and an account".into()),
        ("OPEN" | "CLOSE" | "START" | "PAUSE" | "RESUME" | "REGISTER" | "WITHDRAW", _) => {
            return Err(format!("{verb} takes a tournament's number only"))
        }
        _ => return Err(format!("no tournament order {verb}")),
    };
    Ok(order)
}

/// `name=… game=… format=rr|rr2|swiss:R time=… start=hand|<RFC 3339 UTC> [rated] [bye=1|0.5|0]`.
fn create(words: &[&str]) -> Result<Settings, String> {
    let mut name = None;
    let mut game = None;
    let mut format = None;
    let mut time = None;
    let mut start = None;
    let mut rated = false;
    let mut bye = ByeScore::Win;
    for word in words {
        if word.eq_ignore_ascii_case("rated") {
            rated = true;
            continue;
        }
        let (key, value) = word
            .split_once('=')
            .ok_or_else(|| format!("{word:?}: expected key=value or rated"))?;
        match key {
            "name" => name = Some(value.replace('_', " ")),
            "game" => game = Some(value.to_owned()),
            "format" => format = Some(read_format(value)?),
            "time" => time = Some(value.to_owned()),
            "start" => start = Some(read_start(value)?),
            "bye" => bye = read_bye(value)?,
            _ => return Err(format!("{key:?}: not a tournament setting")),
        }
    }
    let missing = |key: &str| format!("CREATE needs {key}=");
    let mut settings = Settings::new(
        &name.ok_or_else(|| missing("name"))?,
        &game.ok_or_else(|| missing("game"))?,
        format.ok_or_else(|| missing("format"))?,
        &time.ok_or_else(|| missing("time"))?,
        start.unwrap_or(Start::ByHand),
        rated,
    );
    settings.bye_score = bye;
    Ok(settings)
}

/// `rr`, `rr2` or `swiss:R`, as `GAME TOURNAMENT` lines write it back ([`format_word`]).
pub fn read_format(value: &str) -> Result<Format, String> {
    match value {
        "rr" => Ok(Format::RoundRobin { double: false }),
        "rr2" => Ok(Format::RoundRobin { double: true }),
        _ => {
            let rounds = value
                .strip_prefix("swiss:")
                .and_then(|r| r.parse().ok())
                .filter(|&r: &u32| r > 0)
                .ok_or_else(|| format!("{value:?}: format is rr, rr2 or swiss:ROUNDS"))?;
            Ok(Format::Swiss { rounds })
        }
    }
}

/// The word [`read_format`] reads.
pub fn format_word(format: Format) -> String {
    match format {
        Format::RoundRobin { double: false } => "rr".into(),
        Format::RoundRobin { double: true } => "rr2".into(),
        Format::Swiss { rounds } => format!("swiss:{rounds}"),
    }
}

fn read_bye(value: &str) -> Result<ByeScore, String> {
    match value {
        "1" => Ok(ByeScore::Win),
        "0.5" => Ok(ByeScore::Draw),
        "0" => Ok(ByeScore::Loss),
        _ => Err(format!("{value:?}: a bye is worth 1, 0.5 or 0")),
    }
}

fn read_start(value: &str) -> Result<Start, String> {
    if value == "hand" {
        return Ok(Start::ByHand);
    }
    rfc3339_utc(value)
        .map(|unix_seconds| Start::At { unix_seconds })
        .ok_or_else(|| format!("{value:?}: start is hand or a UTC time like 2026-11-27T20:00:00Z"))
}

/// `YYYY-MM-DDTHH:MM:SSZ` as seconds since the Unix epoch (UTC only: a server's operators
/// and players live in many zones, and Z says which one is meant).
fn rfc3339_utc(text: &str) -> Option<u64> {
    let text = text.strip_suffix('Z').or_else(|| text.strip_suffix('z'))?;
    let (date, time) = text.split_once(['T', 't'])?;
    let mut d = date.split('-').map(|n| n.parse::<u64>().ok());
    let (year, month, day) = (d.next()??, d.next()??, d.next()??);
    let mut t = time.split(':').map(|n| n.parse::<u64>().ok());
    let (hour, minute, second) = (t.next()??, t.next()??, t.next()??);
    if d.next().is_some() || t.next().is_some() || !(1970..=9999).contains(&year) {
        return None;
    }
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second)
}

/// Days from 1970-01-01 to a (proleptic Gregorian) date: Howard Hinnant's `days_from_civil`.
fn days_from_civil(year: u64, month: u64, day: u64) -> u64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y / 400;
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<&str> {
        line.split_whitespace().collect()
    }

    #[test]
    fn a_create_reads_every_setting() {
        let order = read(&words(
            "CREATE name=Club_night game=tictactoe format=rr2 time=30s+1 start=2026-11-27T20:00:00Z rated bye=0.5",
        ))
        .unwrap();
        let Order::Create(s) = order else {
            panic!("{order:?}")
        };
        assert_eq!(s.name, "Club night");
        assert_eq!(s.game, "tictactoe");
        assert_eq!(s.format, Format::RoundRobin { double: true });
        assert_eq!(s.time_control, "30s+1");
        assert_eq!(
            s.start,
            Start::At {
                unix_seconds: 1_795_809_600
            }
        );
        assert!(s.rated);
        assert_eq!(s.bye_score, ByeScore::Draw);
    }

    #[test]
    fn a_create_without_a_setting_says_which() {
        let e = read(&words("create game=reversi format=swiss:5 time=5+3")).unwrap_err();
        assert_eq!(e, "CREATE needs name=");
        assert!(read(&words("CREATE name=a game=b format=swiss:0 time=5+3")).is_err());
        assert!(read(&words("CREATE name=a game=b format=rr time=5+3 colour=red")).is_err());
        assert!(read(&words(
            "CREATE name=a game=b format=rr time=5+3 start=tomorrow"
        ))
        .is_err());
    }

    #[test]
    fn orders_on_a_tournament_take_its_number() {
        assert_eq!(read(&words("start 4")), Ok(Order::Start(4)));
        assert_eq!(read(&words("REGISTER 4")), Ok(Order::Register(4)));
        assert_eq!(
            read(&words("REMOVE 4 bob")),
            Ok(Order::Remove {
                id: 4,
                account: "bob".into()
            })
        );
        assert!(read(&words("START")).is_err());
        assert!(read(&words("START four")).is_err());
        assert!(read(&words("START 4 5")).is_err());
        assert!(read(&words("REMOVE 4")).is_err());
        assert!(read(&words("JUMP 4")).is_err());
        assert!(!Order::Register(4).organisers_only());
        assert!(Order::Pause(4).organisers_only());
    }

    #[test]
    fn formats_read_back_what_they_write() {
        for format in [
            Format::RoundRobin { double: false },
            Format::RoundRobin { double: true },
            Format::Swiss { rounds: 7 },
        ] {
            assert_eq!(read_format(&format_word(format)), Ok(format));
        }
    }

    #[test]
    fn utc_times_count_from_the_epoch() {
        assert_eq!(rfc3339_utc("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(rfc3339_utc("2000-03-01T00:00:01Z"), Some(951_868_801));
        assert_eq!(rfc3339_utc("2026-11-27T20:00:00+01:00"), None);
        assert_eq!(rfc3339_utc("2026-13-27T20:00:00Z"), None);
    }
}
