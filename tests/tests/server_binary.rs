//! What the server binary carries. Every session process maps it, so what
//! it does not need costs every session (see README, "Sessions and memory").

use reversi_tests::reversid_binary;

/// The server referees; it never plays. Reversi's computer player brings
/// 2 MB of evaluation weights, which must stay out of `reversid`.
#[test]
fn the_server_links_no_computer_player() {
    let weights = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../engine/data/eval.bin"
    ))
    .expect("read the engine's evaluation weights");
    let server = std::fs::read(reversid_binary()).expect("read the server binary");
    // A window from the middle of the weights: no other data matches it by chance.
    let window = &weights[weights.len() / 2..][..64];
    assert!(
        !server.windows(window.len()).any(|w| w == window),
        "reversid contains the engine's evaluation weights: something in the server reaches a bot"
    );
}
