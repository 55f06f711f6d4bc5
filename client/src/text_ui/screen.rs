//! The full-screen view (ratatui over crossterm): the board with a cursor,
//! whose turn it is, this player's side, the moves, messages and the
//! result. Arrow keys or hjkl move the cursor; space picks a square (a
//! multi-square move is built square by square); Enter on the last picked
//! square, or `m`, sends the move; Esc clears; `:` opens a line to type a
//! move (`d3`, `4 6`) or a command; `q` twice leaves. The screen is redrawn
//! at least every [`TICK`], so a real-time game never waits on the keyboard.

use std::sync::mpsc::{Receiver, TryRecvError};
use std::time::Duration;

use ratatui::crossterm::event::{
    self, Event as TermEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers,
};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::Frame;

use reversi_client::exit;
use reversi_client::text::{Event, Game, Notice, Piece, Request, Standing};
use reversi_client::transport::Driver;

use super::legend::{self, Legend};
use super::numbering::Numbering;
use super::picture::{self, Glyph, Mark, Marks};
use super::typed::{self, Typed};
use super::{words, Input};

/// The longest the screen waits for a key before it looks at the network again.
const TICK: Duration = Duration::from_millis(50);

/// Messages kept for the message pane.
const LOG_LINES: usize = 200;

/// The title line and the keys line.
const CHROME_HEIGHT: u16 = 2;
/// The message pane: three lines and its border, five on a tall screen.
const LOG_HEIGHT: u16 = 5;
const TALL_LOG_HEIGHT: u16 = 7;
/// A screen this tall gets the tall message pane (when the board leaves room).
const TALL_SCREEN: u16 = 32;
/// The status panel beside the board, at least: whose move, the cursor, the move built.
const SIDE_WIDTH: u16 = 30;
/// The status panel under the board, at least: three lines and its border.
const STATUS_HEIGHT: u16 = 5;

const KEYS: &str = "arrows/hjkl move, space pick, Enter/m send, Esc clear, : type, ? help, q quit";
/// A viewer has no cursor and sends no moves.
const VIEWER_KEYS: &str = "watching: ? help, q leaves";

/// The keys line for the game on screen: a viewer's are only its own.
fn keys(game: Option<&Game>) -> &'static str {
    match game.map(Game::team) {
        Some(None) => VIEWER_KEYS,
        _ if game.is_some_and(|g| g.over.is_some()) => OVER_KEYS,
        _ if claimable(game) => CLAIM_KEYS,
        _ => KEYS,
    }
}

/// After a game: a rematch may be offered, accepted or declined.
const OVER_KEYS: &str = "r rematch (offer or accept), n decline it, q quit";
/// An opponent did not come back in its grace.
const CLAIM_KEYS: &str = "w claim the win, d claim a draw (or play on and wait), q quit";

const HELP: &str =
    "Build a move square by square: move the cursor with the arrow keys (or h j k l), \
press space (or Enter) on each square of the move in order, then Enter on the last one (or m) \
sends it. Esc clears the squares picked. Or press : and type the move: in the game's own notation \
(d3, 11-15), as numbers (4 6, or 1 1 1 6 for two squares), or a command (offer draw, accept draw, \
quit). q twice leaves (your team resigns if the game is on).";

/// The help a viewer gets: it cannot move.
const VIEWER_HELP: &str =
    "You are watching: the board, the moves and the messages follow the game \
as it is played. A viewer cannot move. q leaves (the game goes on without you).";

struct Screen {
    driver: Driver,
    legend: Legend,
    colour: bool,
    cursor: (u8, u8),
    picked: Vec<(u8, u8)>,
    /// The `:` line being typed.
    editor: Option<String>,
    log: Vec<String>,
    /// `q` was pressed once during a game.
    quit_armed: bool,
    help: bool,
    /// The connection finished with this code (the screen stays until `q`).
    finished: Option<u8>,
    /// Leave the screen with this code.
    leave: Option<u8>,
    /// The round of the game the cursor was placed for.
    round: u32,
    /// What went wrong, for stderr once the screen is left.
    failure: Option<String>,
    /// This client's challenge, while it waits for a friend.
    invitation: Invitation,
}

/// A challenge's code and link, shown large until the game starts.
#[derive(Default)]
struct Invitation {
    code: Option<String>,
    link: Option<String>,
}

impl Screen {
    fn game(&self) -> Option<&Game> {
        self.driver.client().game()
    }

    fn note(&mut self, notice: &Notice) {
        // Clocks, timers and the control count down in the side panel, not in the log.
        if matches!(
            notice,
            Notice::Clock { .. } | Notice::Timer { .. } | Notice::Time(_)
        ) {
            return;
        }
        match notice {
            Notice::Invited { code, .. } => self.invitation.code = Some(code.clone()),
            Notice::Link(url) => self.invitation.link = Some(url.clone()),
            Notice::Started => self.invitation = Invitation::default(),
            _ => {}
        }
        if let Some(text) = words::notice(notice, self.game()) {
            // A notice of several lines (a challenge's code) is several log lines.
            self.log.extend(
                text.lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(str::to_owned),
            );
            let excess = self.log.len().saturating_sub(LOG_LINES);
            self.log.drain(..excess);
        }
    }

    /// Feeds an event to the client and notes what it says.
    fn feed(&mut self, event: Event) {
        let mut notices = Vec::new();
        let code = self
            .driver
            .handle(event, &mut |n: &Notice| notices.push(n.clone()));
        for notice in &notices {
            if words::is_failure(notice) {
                self.failure = words::notice(notice, self.game());
            }
            if *notice == Notice::Started {
                self.picked.clear();
            }
            if matches!(notice, Notice::Quit { .. }) {
                self.leave = Some(exit::OK);
            }
            self.note(notice);
        }
        if let Some(game) = self.driver.client().game() {
            // Only a whole board: the fills go by the kinds' order on it,
            // as in the line mode and bot --show, not by the drawing's order.
            if notices.contains(&Notice::BoardChanged) {
                self.legend.learn(&game.board);
            }
            if game.round != self.round {
                self.round = game.round;
                let board = &game.board;
                self.cursor = (board.width().div_ceil(2), board.height().div_ceil(2));
            }
        }
        if code.is_some() && self.finished.is_none() {
            self.finished = code;
            // Turned away before any game: nothing to look at.
            if self.game().is_none() {
                self.leave = code;
            }
        }
    }

    fn request(&mut self, request: Request) {
        let sends_move = matches!(request, Request::Move(_) | Request::Notation(_));
        let could = self.driver.client().may_move();
        self.feed(Event::User(request));
        if sends_move && could && !self.driver.client().may_move() {
            self.picked.clear();
        }
    }

    /// Whether the game is on and this client plays in it.
    fn playing(&self) -> bool {
        self.finished.is_none()
            && self
                .game()
                .is_none_or(|g| g.team().is_some() && g.over.is_none())
    }

    fn key(&mut self, key: KeyEvent) {
        if key.kind != KeyEventKind::Press {
            return;
        }
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            self.leave_now();
            return;
        }
        if key.modifiers.contains(KeyModifiers::ALT) {
            // Esc and a key read together come as Alt and that key: both were pressed.
            self.key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
            self.key(KeyEvent::new(key.code, key.modifiers - KeyModifiers::ALT));
            return;
        }
        if let Some(line) = &mut self.editor {
            match key.code {
                KeyCode::Esc => self.editor = None,
                KeyCode::Backspace => {
                    line.pop();
                }
                KeyCode::Enter => {
                    let line = self.editor.take().unwrap_or_default();
                    self.typed(&line);
                }
                KeyCode::Char(c) => line.push(c),
                _ => {}
            }
            return;
        }
        let quit = key.code == KeyCode::Char('q');
        if !quit {
            self.quit_armed = false;
        }
        match key.code {
            KeyCode::Char('q') => self.quit_key(),
            KeyCode::Left | KeyCode::Char('h') => self.step(-1, 0),
            KeyCode::Right | KeyCode::Char('l') => self.step(1, 0),
            KeyCode::Up | KeyCode::Char('k') => self.step(0, 1),
            KeyCode::Down | KeyCode::Char('j') => self.step(0, -1),
            KeyCode::Char(' ') => self.pick(),
            KeyCode::Enter => {
                if self.picked.last() == Some(&self.cursor) {
                    self.send_picked();
                } else {
                    self.pick();
                }
            }
            KeyCode::Char('m') => {
                if self.picked.is_empty() {
                    self.picked.push(self.cursor);
                }
                self.send_picked();
            }
            KeyCode::Esc => {
                self.picked.clear();
                self.help = false;
            }
            KeyCode::Char(':') => self.editor = Some(String::new()),
            KeyCode::Char('r') if self.game().is_some_and(|g| g.over.is_some()) => {
                self.request(Request::OfferRematch)
            }
            KeyCode::Char('n') if self.game().is_some_and(|g| g.over.is_some()) => {
                self.request(Request::DeclineRematch)
            }
            KeyCode::Char('w') if claimable(self.game()) => self.request(Request::ClaimWin),
            KeyCode::Char('d') if claimable(self.game()) => self.request(Request::ClaimDraw),
            KeyCode::Char('?') => self.help = !self.help,
            _ => {}
        }
    }

    fn quit_key(&mut self) {
        if !self.playing() || self.quit_armed {
            self.leave_now();
        } else {
            self.quit_armed = true;
            self.log
                .push("press q again to leave: your team resigns the game".to_owned());
        }
    }

    fn leave_now(&mut self) {
        if let Some(code) = self.finished {
            self.leave = Some(code);
        } else if self.driver.client().is_connected() {
            self.feed(Event::User(Request::Quit));
            self.leave = Some(self.finished.unwrap_or(exit::OK));
        } else {
            self.leave = Some(exit::OK);
        }
    }

    fn step(&mut self, dx: i16, dy: i16) {
        let Some(game) = self.game() else { return };
        let (w, h) = (
            i16::from(game.board.width()),
            i16::from(game.board.height()),
        );
        let x = (i16::from(self.cursor.0) + dx).clamp(1, w);
        let y = (i16::from(self.cursor.1) + dy).clamp(1, h);
        self.cursor = (x as u8, y as u8);
    }

    /// Space: adds the cursor's square to the move, or takes it back if it
    /// was the last one added.
    fn pick(&mut self) {
        if self.game().is_none() {
            return;
        }
        if self.picked.last() == Some(&self.cursor) {
            self.picked.pop();
        } else {
            self.picked.push(self.cursor);
        }
    }

    fn send_picked(&mut self) {
        if self.picked.is_empty() {
            return;
        }
        self.request(Request::Move(self.picked.clone()));
    }

    fn typed(&mut self, line: &str) {
        match typed::parse(line) {
            Ok(None) => {}
            Ok(Some(Typed::Send(Request::Quit))) => self.leave_now(),
            Ok(Some(Typed::Send(request))) => self.request(request),
            Ok(Some(Typed::Help)) => self.help = true,
            Ok(Some(Typed::Hint)) => {
                let hint = super::hint::hint(self.game());
                self.log.push(hint);
            }
            Ok(Some(Typed::Moves)) => {
                let moves = words::legal_moves(self.game());
                self.log.push(moves);
            }
            Ok(Some(Typed::Board)) => {}
            Err(why) => self.log.push(format!("refused: {why}")),
        }
    }
}

impl Screen {
    /// The challenge's code in large digits, to read aloud, and its link.
    fn draw_invitation(&self, frame: &mut Frame, area: Rect) {
        let Some(code) = &self.invitation.code else {
            return;
        };
        let bold = Style::new().add_modifier(Modifier::BOLD);
        let mut lines = vec![Line::raw("Give your friend this code:"), Line::raw("")];
        lines.extend(
            super::big::digits(code)
                .into_iter()
                .map(|l| Line::styled(l, bold)),
        );
        lines.push(Line::raw(""));
        lines.push(Line::styled(format!("code {code}"), bold));
        lines.push(Line::raw(format!("reversi play --join {code}")));
        if let Some(link) = &self.invitation.link {
            lines.push(Line::raw(format!("or the link: {link}")));
        }
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
    }
}

/// Whether an opponent's grace is over, so that a win or a draw may be claimed.
fn claimable(game: Option<&Game>) -> bool {
    game.is_some_and(|g| g.over.is_none() && g.away.iter().any(|a| a.time.ms == 0))
}

/// The background of a square kind: colour words are taken at their word,
/// other kinds get colours in the order first seen.
fn square_colour(kind: &str, index: usize) -> Option<Color> {
    const OTHERS: [u8; 6] = [24, 95, 66, 131, 61, 101];
    Some(Color::Indexed(match kind {
        "empty" | "" => return None,
        "green" => 28,
        "water" | "blue" => 25,
        "land" => 64,
        "dark" | "black" => 238,
        "light" | "white" => 250,
        "key" | "gold" | "yellow" => 136,
        "red" => 124,
        _ => OTHERS[index % OTHERS.len()],
    }))
}

/// A piece: named colours as they say, else a colour per team; the label
/// in a contrasting colour.
/// A piece's colours: black and white pieces (or the pieces of teams named
/// black and white, as draughts' men are) in those colours, others by team.
fn piece_style(piece: &Piece, game: &Game) -> Style {
    const TEAMS: [u8; 4] = [160, 27, 34, 130];
    let colour = match game.team_name(piece.team) {
        Some(team @ ("black" | "white")) => team,
        _ => piece.name.as_str(),
    };
    let (bg, fg) = match colour {
        "black" => (Color::Indexed(16), Color::Indexed(231)),
        "white" => (Color::Indexed(231), Color::Indexed(16)),
        _ => {
            let i = usize::from(piece.team.saturating_sub(1)) % TEAMS.len();
            (Color::Indexed(TEAMS[i]), Color::Indexed(231))
        }
    };
    Style::new().bg(bg).fg(fg).add_modifier(Modifier::BOLD)
}

fn glyph_style(glyph: &Glyph, legend: &Legend, colour: bool, game: &Game) -> Style {
    let mut style = Style::new();
    if colour {
        if let Some(bg) = square_colour(&glyph.kind, legend.kind_index(&glyph.kind)) {
            style = style.bg(bg);
        }
        style = match &glyph.piece {
            Some(piece) => piece_style(piece, game),
            None => style.fg(Color::Indexed(244)),
        };
        style = match glyph.mark {
            Mark::None => style,
            Mark::Changed => style.add_modifier(Modifier::UNDERLINED),
            Mark::Picked => style.bg(Color::Indexed(201)).fg(Color::Indexed(231)),
            Mark::Cursor => style.bg(Color::Indexed(226)).fg(Color::Indexed(16)),
        };
    } else if glyph.mark == Mark::Cursor {
        style = style.add_modifier(Modifier::REVERSED);
    }
    if glyph.mark >= Mark::Picked {
        style = style.add_modifier(Modifier::BOLD);
    }
    style
}

fn brackets(mark: Mark) -> (char, char) {
    match mark {
        Mark::None => (' ', ' '),
        Mark::Changed => ('(', ')'),
        Mark::Picked => ('<', '>'),
        Mark::Cursor => ('[', ']'),
    }
}

impl Screen {
    fn board_lines(&self, game: &Game) -> Vec<Line<'static>> {
        let board = &game.board;
        let marks = Marks {
            cursor: (game.team().is_some() && game.over.is_none()).then_some(self.cursor),
            picked: &self.picked,
            changed: &game.changed,
            numbers: Numbering::of(&game.game),
        };
        let cell = picture::cell_width(&self.legend, &marks);
        let margin = picture::margin(board);
        let columns = picture::column_labels(board, cell, margin);
        let mut lines = vec![Line::raw(columns.clone())];
        let rows = picture::glyphs(board, &self.legend, &marks);
        for (row, y) in rows.iter().zip((1..=board.height()).rev()) {
            let y = board.row_name(y);
            let mut spans = vec![Span::raw(format!("{y:>w$} ", w = margin - 1))];
            for glyph in row {
                let (open, close) = brackets(glyph.mark);
                let style = glyph_style(glyph, &self.legend, self.colour, game);
                spans.push(Span::styled(format!("{open}{}{close}", glyph.text), style));
            }
            spans.push(Span::raw(format!(" {y:<w$}", w = margin - 1)));
            lines.push(Line::from(spans));
        }
        lines.push(Line::raw(columns));
        lines
    }

    /// Whose move, the result, the move being built, the moves so far.
    fn side_lines(&self, game: &Game) -> Vec<Line<'static>> {
        let bold = Style::new().add_modifier(Modifier::BOLD);
        let mut status_style = bold;
        if self.colour {
            let result = game.over.as_ref().and_then(|o| o.result.as_ref());
            status_style = match result.map(|(standing, _)| *standing) {
                Some(Standing::Win) => status_style.fg(Color::Indexed(46)),
                Some(Standing::Lose) => status_style.fg(Color::Indexed(196)),
                Some(Standing::Draw) => status_style.fg(Color::Indexed(226)),
                None if game.ready => status_style.fg(Color::Indexed(46)),
                None => status_style,
            };
        }
        let mut lines = vec![Line::styled(words::status(game), status_style)];
        if let Some((_, why)) = game.over.as_ref().and_then(|o| o.result.as_ref()) {
            lines.push(Line::raw(why.clone()));
        }
        lines.push(Line::raw(""));
        lines.extend(self.time_lines(game));
        lines.push(Line::raw(words::counts(game)));
        lines.push(Line::raw(""));
        if game.team().is_some() && game.over.is_none() {
            let picked: Vec<String> = self
                .picked
                .iter()
                .map(|&(x, y)| game.board.square_name(x, y))
                .collect();
            let building = if picked.is_empty() {
                "none picked (space picks)".to_owned()
            } else {
                format!("{} (Enter or m sends)", picked.join(", "))
            };
            lines.push(Line::raw(words::cursor(game, self.cursor)));
            lines.push(Line::raw(format!("squares: {building}")));
            if let Some(moves) = &game.legal {
                lines.push(Line::raw(format!("legal: {}", moves.join(" "))));
            }
            lines.push(Line::raw(""));
        }
        lines.push(Line::styled(words::moves_heading(game), bold));
        for moved in game.moves.iter().rev() {
            lines.push(Line::raw(format!(
                "{}: {}",
                words::team(Some(game), moved.team),
                moved.notation
            )));
        }
        lines
    }

    /// The clocks, the running one bold (and red when low, with the word
    /// LOW for a screen without colour), and the game's own timers.
    fn time_lines(&self, game: &Game) -> Vec<Line<'static>> {
        let now = std::time::Instant::now();
        let mut lines = Vec::new();
        for clock in words::clocks(game, now) {
            let mut style = Style::new();
            if clock.running {
                // The mover in reverse video: it reads without colour.
                style = style.add_modifier(Modifier::BOLD | Modifier::REVERSED);
            }
            if clock.low && self.colour {
                style = style.fg(Color::Indexed(196));
            }
            lines.push(Line::styled(format!("clock {}", clock.text), style));
        }
        lines.extend(words::timers(game, now).into_iter().map(Line::raw));
        lines.extend(words::away(game, now).into_iter().map(Line::raw));
        if self.driver.client().is_reconnecting() {
            let style = Style::new().add_modifier(Modifier::BOLD);
            lines.push(Line::styled("connection lost, reconnecting…", style));
        }
        lines
    }

    /// What each label and fill stands for.
    fn legend_lines(&self, game: &Game) -> Vec<Line<'static>> {
        let mut lines = Vec::new();
        for (label, name, team) in self.legend.pieces() {
            let piece = Piece {
                name: name.clone(),
                team,
            };
            let style = if self.colour {
                piece_style(&piece, game)
            } else {
                Style::new()
            };
            lines.push(Line::from(vec![
                Span::styled(format!(" {label} "), style),
                Span::raw(format!(" {}", legend::piece_words(&name, team, game))),
            ]));
        }
        if self.legend.kinds().len() > 1 {
            for kind in self.legend.kinds() {
                let mut style = Style::new();
                if let Some(bg) = square_colour(kind, self.legend.kind_index(kind)) {
                    if self.colour {
                        style = style.bg(bg);
                    }
                }
                lines.push(Line::from(vec![
                    Span::styled(format!(" {} ", self.legend.fill(kind)), style),
                    Span::raw(format!(" {}", legend::kind_words(kind))),
                ]));
            }
        }
        lines
    }

    fn draw(&self, frame: &mut Frame) {
        let have = frame.area();
        let size = self.game().map(|game| Footprint::of(self, game));
        let too_small = size.as_ref().filter(|size| !size.fits(have));
        let need = size.as_ref().map(|size| size.screen(have.width));
        // Five lines of messages on a tall screen with room to spare, three else.
        let spare = need.map_or(have.height, |(_, h)| have.height.saturating_sub(h));
        let log_height = if have.height >= TALL_SCREEN && spare >= TALL_LOG_HEIGHT - LOG_HEIGHT {
            TALL_LOG_HEIGHT
        } else {
            LOG_HEIGHT
        };
        let [top, main, messages, bottom] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(5),
            Constraint::Length(log_height),
            Constraint::Length(1),
        ])
        .areas(frame.area());
        let title = match self.game() {
            Some(game) => words::header(game),
            None if self.invitation.code.is_some() => {
                "your challenge: waiting for a friend to join".to_owned()
            }
            None => match self.driver.client().waiting_for() {
                Some(1) => "waiting for 1 more player...".to_owned(),
                Some(n) => format!("waiting for {n} more players..."),
                None => "connecting...".to_owned(),
            },
        };
        frame.render_widget(
            Paragraph::new(title).style(Style::new().add_modifier(Modifier::BOLD)),
            top,
        );
        match (self.game(), too_small) {
            (Some(_), Some(size)) => {
                let [(w, h), (wide, short)] = size.smallest();
                let text = format!(
                    "terminal too small for this board: need {w} x {h} (or {wide} x {short}), \
                     have {} x {}\n(make it bigger, or q twice leaves)",
                    have.width, have.height
                );
                let area = centred(main, main.width, 3);
                frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
            }
            (Some(game), None) => self.draw_game(frame, main, game),
            (None, _) => self.draw_invitation(frame, main),
        }
        let shown = usize::from(messages.height.saturating_sub(2));
        let log: Vec<Line> = self
            .log
            .iter()
            .skip(self.log.len().saturating_sub(shown))
            .map(|l| Line::raw(l.clone()))
            .collect();
        frame.render_widget(
            Paragraph::new(log)
                .wrap(Wrap { trim: true })
                .block(Block::bordered().title("messages")),
            messages,
        );
        let bottom_text = match (&self.editor, self.finished) {
            (Some(line), _) => format!(": {line}_   (a move: d3 or 4 6; Enter sends, Esc cancels)"),
            (None, Some(_)) => "the game is over: q leaves".to_owned(),
            (None, None) => keys(self.game()).to_owned(),
        };
        frame.render_widget(Paragraph::new(bottom_text), bottom);
        if self.help {
            let viewer = self.game().is_some_and(|g| g.team().is_none());
            let mut help = vec![
                Line::raw(if viewer { VIEWER_HELP } else { HELP }),
                Line::raw(""),
                Line::raw(words::CLOCK_HELP),
            ];
            if let Some(game) = self.game() {
                if let Some(rules) = words::rules(game) {
                    help.extend([Line::raw(""), Line::raw(rules)]);
                }
                help.extend([Line::raw(""), Line::raw(words::coordinates(&game.board))]);
                if let Some(numbering) = Numbering::of(&game.game) {
                    help.extend([Line::raw(""), Line::raw(numbering.describe(&game.board))]);
                }
            }
            let area = centred(frame.area(), 76, 34);
            frame.render_widget(ratatui::widgets::Clear, area);
            frame.render_widget(
                Paragraph::new(help)
                    .wrap(Wrap { trim: true })
                    .block(Block::bordered().title("help (Esc or ? closes)")),
                area,
            );
        }
    }

    /// The board and its legend on the left (or above, when the screen is
    /// narrow), the game's state beside them.
    fn draw_game(&self, frame: &mut Frame, area: Rect, game: &Game) {
        let board = self.board_lines(game);
        let legend = self.legend_lines(game);
        let size = Footprint::of(self, game);
        let left_width = size.left_width.min(area.width);
        let board_height = size.board_height;
        let legend_height = legend.len() as u16 + 2;
        let (left, side) = if size.side_fits(area.width) {
            let [l, s] = Layout::horizontal([Constraint::Length(left_width), Constraint::Min(0)])
                .areas(area);
            (l, s)
        } else {
            // The status keeps its lines under the board; the legend gets what is left.
            let left_height = (board_height + legend_height)
                .min(area.height.saturating_sub(STATUS_HEIGHT))
                .max(board_height);
            let [l, s] =
                Layout::vertical([Constraint::Length(left_height), Constraint::Min(0)]).areas(area);
            (l, s)
        };
        // The board first; the legend where room is left (none on a small screen).
        let [board_area, rest] =
            Layout::vertical([Constraint::Length(board_height), Constraint::Min(0)]).areas(left);
        let legend_area = Rect {
            height: rest.height.min(legend_height),
            ..rest
        };
        frame.render_widget(
            Paragraph::new(board).block(Block::bordered().title(board_title(game))),
            board_area,
        );
        if legend_area.height >= 3 {
            frame.render_widget(
                Paragraph::new(legend).block(Block::bordered().title("pieces")),
                legend_area,
            );
        }
        frame.render_widget(
            Paragraph::new(self.side_lines(game))
                .wrap(Wrap { trim: false })
                .block(Block::bordered()),
            side,
        );
    }
}

/// The board's frame title: `TicTacToeBoard 3x3`.
fn board_title(game: &Game) -> String {
    let board = &game.board;
    format!("{} {}x{}", board.name(), board.width(), board.height())
}

/// What a game's screen takes: the board (with its legend beside it, as
/// wide as the wider of the two) and the status panel.
struct Footprint {
    left_width: u16,
    board_height: u16,
}

impl Footprint {
    fn of(screen: &Screen, game: &Game) -> Footprint {
        let width = |lines: &[Line]| lines.iter().map(Line::width).max().unwrap_or(0) as u16 + 2;
        let board = screen.board_lines(game);
        Footprint {
            left_width: width(&board)
                .max(width(&screen.legend_lines(game)))
                .max(board_title(game).chars().count() as u16 + 2),
            board_height: board.len() as u16 + 2,
        }
    }

    /// Whether the status panel goes beside the board on a screen this wide.
    fn side_fits(&self, width: u16) -> bool {
        width >= self.left_width + SIDE_WIDTH
    }

    /// The smallest screen (width, height) that shows the whole board, its
    /// status and the messages, for a screen `width` wide: the status
    /// beside the board if it is wide enough, else under it.
    fn screen(&self, width: u16) -> (u16, u16) {
        let [under, beside] = self.smallest();
        if self.side_fits(width) {
            beside
        } else {
            under
        }
    }

    /// The smallest screens: with the status under the board, and beside it.
    fn smallest(&self) -> [(u16, u16); 2] {
        let height = CHROME_HEIGHT + LOG_HEIGHT + self.board_height;
        [
            (self.left_width, height + STATUS_HEIGHT),
            (self.left_width + SIDE_WIDTH, height),
        ]
    }

    /// Whether a screen of `have`'s size shows it all.
    fn fits(&self, have: Rect) -> bool {
        let (width, height) = self.screen(have.width);
        have.width >= width && have.height >= height
    }
}

fn centred(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    )
}

/// Runs the full-screen view until the person leaves; returns the exit code.
pub fn run(driver: Driver, rx: &Receiver<Input>, early: Vec<Notice>, colour: bool) -> u8 {
    let mut screen = Screen {
        driver,
        legend: Legend::default(),
        colour,
        cursor: (1, 1),
        picked: Vec::new(),
        editor: None,
        log: Vec::new(),
        quit_armed: false,
        help: false,
        finished: None,
        leave: None,
        round: 0,
        failure: None,
        invitation: Invitation::default(),
    };
    for notice in &early {
        screen.note(notice);
    }
    let mut terminal = ratatui::init();
    let code = loop {
        loop {
            match rx.try_recv() {
                Ok(Input::Net(event)) => screen.feed(event),
                Ok(_) => {}
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    if screen.finished.is_none() {
                        screen.feed(Event::Eof);
                    }
                    break;
                }
            }
        }
        if screen
            .driver
            .redial_due()
            .is_some_and(|due| due <= std::time::Instant::now())
        {
            screen.feed(Event::Redial);
        }
        if let Some(code) = screen.leave {
            break code;
        }
        if let Err(e) = terminal.draw(|frame| screen.draw(frame)) {
            screen.log.push(format!("cannot draw: {e}"));
            break exit::SERVER_GONE;
        }
        match event::poll(TICK) {
            Ok(true) => match event::read() {
                Ok(TermEvent::Key(key)) => screen.key(key),
                // A resize is drawn on the next turn of the loop.
                Ok(_) => {}
                Err(_) => screen.leave_now(),
            },
            Ok(false) => {}
            Err(_) => screen.leave_now(),
        }
    };
    ratatui::restore();
    // What the screen said last stays in the terminal's scrollback.
    if let Some(game) = screen.game() {
        println!("{}", words::header(game));
        println!("{}", words::status(game));
    }
    for line in screen.log.iter().rev().take(3).rev() {
        if Some(line) != screen.failure.as_ref() {
            println!("{line}");
        }
    }
    if let Some(failure) = &screen.failure {
        eprintln!("reversi: {failure}");
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;
    use reversi_client::text::Seat;

    fn game(seat: Seat) -> Game {
        super::super::test_game("TicTacToe", ("TicTacToeBoard", 3, 3), seat)
    }

    #[test]
    fn a_viewer_is_shown_only_the_keys_it_has() {
        let viewer = game(Seat::Viewer { id: 3 });
        assert_eq!(keys(Some(&viewer)), VIEWER_KEYS);
        assert!(!keys(Some(&viewer)).contains("pick"));
        let player = game(Seat::Player {
            team: 1,
            name: "X".into(),
        });
        assert_eq!(keys(Some(&player)), KEYS);
        assert_eq!(keys(None), KEYS);
    }
}
