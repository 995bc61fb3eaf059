//! Prints the indices of every board size: the total, the largest tier and its number of stones.
//!
//! `cargo run -p retro-connect4 --example sizes`; `-- 6x5` also prints every tier of a board.

use retro_connect4::{Layout, Shape};

fn main() {
    let detail: Vec<Shape> = std::env::args()
        .skip(1)
        .map(|a| Shape::parse(&a).unwrap())
        .collect();
    println!("board  indices             largest tier");
    for w in 4..=7 {
        for h in 4..=7 {
            let shape = Shape::new(w, h).unwrap();
            let layout = Layout::new(shape);
            let sizes: Vec<u64> = (0..=shape.cells()).map(|k| layout.tier_size(k)).collect();
            let (k, largest) = sizes.iter().enumerate().max_by_key(|&(_, s)| s).unwrap();
            println!(
                "{shape}    {:>18}  {largest:>17} (k = {k})",
                sizes.iter().sum::<u64>()
            );
            if detail.contains(&shape) {
                for (k, size) in sizes.iter().enumerate() {
                    println!("  {shape}-{k:02} {size:>17}");
                }
            }
        }
    }
}
