//! Samples random indices and counts what kind of node they are (a quick look at the table's make-up).
use retro_dobutsu::DobutsuGame;
use retro_game::{Game, Node, Value};

fn main() {
    let game = DobutsuGame::new();
    let mut x = 88172645463325252u64;
    let (mut holes, mut win1, mut loss2, mut play, mut moves) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let n = 1_000_000;
    let t = std::time::Instant::now();
    for _ in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        match game.expand(x % game.size(), |_| moves += 1) {
            Node::Hole => holes += 1,
            Node::Terminal(v) if v == Value::win(1) => win1 += 1,
            Node::Terminal(_) => loss2 += 1,
            Node::Playable => play += 1,
        }
    }
    println!(
        "size {} holes {holes} win1 {win1} loss2 {loss2} playable {play} moves/playable {:.1} expand {:?}/pos",
        game.size(),
        moves as f64 / play as f64,
        t.elapsed() / n
    );
    let t = std::time::Instant::now();
    let mut preds = 0u64;
    for _ in 0..n / 4 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        game.unmoves(x % game.size(), |_| preds += 1);
    }
    println!(
        "unmoves {:?}/pos, {:.1} predecessors",
        t.elapsed() / (n / 4),
        preds as f64 / (n / 4) as f64
    );
}
