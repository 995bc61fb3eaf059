//! The board as bits, and the rules on it: pushes, un-pushes, lines and the eight symmetries of the square.
//!
//! A board is seen from the player to move and packed in one `u64`: bit `s` is a cube of the mover's on square `s`,
//! bit `32 + s` a cube of the opponent's, where square `s = row · n + column` counts rows from the top and columns
//! from the left. The two halves never mix: a push only moves cubes inside one row or column, so one shift of the
//! whole word moves the mover's and the opponent's cubes of a segment at once.
//!
//! After a move the other player is to move, so the board the next position sees is the same cubes with the halves
//! swapped ([`swap`]).

/// The opponent's half starts at this bit.
pub const HALF: u32 = 32;
/// The mover's half of a packed board.
pub const LOW: u64 = (1 << HALF) - 1;

/// A packed board (see the module documentation).
pub type Board = u64;

/// The board with the other player to move.
#[inline(always)]
pub fn swap(board: Board) -> Board {
    board.rotate_left(HALF)
}

/// The mover's cubes.
#[inline(always)]
pub fn mine(board: Board) -> u32 {
    board as u32
}

/// The opponent's cubes.
#[inline(always)]
pub fn theirs(board: Board) -> u32 {
    (board >> HALF) as u32
}

/// A board from the mover's and the opponent's cubes.
#[inline(always)]
pub fn pack(mine: u32, theirs: u32) -> Board {
    u64::from(mine) | u64::from(theirs) << HALF
}

/// Both halves of a mask of squares.
#[inline(always)]
fn both(mask: u32) -> u64 {
    pack(mask, mask)
}

/// One push: the cube taken at `from` re-enters at `to`, the far end of its row or column, and the cubes between
/// slide one square towards `from`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Push {
    /// The square the cube is taken from.
    pub from: u8,
    /// The square it re-enters at.
    pub to: u8,
    /// `from` and `to` in both halves.
    from2: u64,
    to2: u64,
    /// The squares whose cubes slide (from `to` up to, not including, `from`), in both halves.
    slide2: u64,
    /// Where they slide to (from the square after `to` up to `from`), in both halves.
    slid2: u64,
    /// Left and right shifts that slide the cubes forwards (one of them is 0), so that a push has no branch.
    left: u32,
    right: u32,
}

impl Push {
    /// The board after the push, still seen by the player who pushed (not swapped). The cube at `from` must be blank
    /// or the mover's.
    #[inline(always)]
    pub fn apply(&self, board: Board) -> Board {
        let slid = ((board & self.slide2) << self.left) >> self.right;
        (board & !(self.slide2 | self.from2)) | slid | (self.to2 & LOW)
    }

    /// The board before the push, seen by the player who pushed, when the cube at `from` was the mover's: the
    /// inverse of [`Push::apply`] on boards whose `to` holds a cube of the mover's.
    #[inline(always)]
    pub fn undo(&self, board: Board) -> Board {
        let back = ((board & self.slid2) >> self.left) << self.right;
        (board & !(self.slid2 | self.to2)) | back | (self.from2 & LOW)
    }

    /// Whether `board` (seen by the player who pushed) can be the result of this push: the mover's cube at `to`.
    #[inline(always)]
    pub fn undoable(&self, board: Board) -> bool {
        board & self.to2 & LOW != 0
    }
}

/// The fixed facts of one board size: its pushes, lines and symmetries, as tables built once.
pub struct Geometry {
    pub n: u32,
    /// Squares: `n · n`.
    pub squares: u32,
    /// All squares.
    pub full: u32,
    /// The border squares, and the corners and the other border squares (the number of pushes they have).
    pub border: u32,
    pub corners: u32,
    pub edges: u32,
    /// Every push, grouped by the square it takes from (in square order).
    pub pushes: Vec<Push>,
    /// For each square, the range of its pushes in `pushes` (empty off the border).
    pub pushes_from: Vec<std::ops::Range<usize>>,
    /// Every push again, grouped by the square the cube re-enters at, and the range of each square's there: un-moves
    /// look only at the squares holding a cube of the player who pushed.
    pub pushes_by_end: Vec<Push>,
    pub pushes_to: Vec<std::ops::Range<usize>>,
    /// The rows, columns and two diagonals.
    pub lines: Vec<u32>,
    /// One bit per mask of squares: whether it contains a line.
    line_bits: Vec<u64>,
    /// `image[g][chunk][byte]`: the image under symmetry `g` of the squares `8 · chunk + k` for the bits `k` of
    /// `byte`.
    image: [Vec<[u32; 256]>; 8],
    /// `move_count[chunk][byte]`: the pushes of the squares `8 · chunk + k` for the bits `k` of `byte`.
    move_count: Vec<[u8; 256]>,
}

impl Geometry {
    /// The tables of an `n × n` board, `n` in `3..=5`.
    pub fn new(n: u32) -> Geometry {
        assert!((3..=5).contains(&n), "board size {n} is not supported");
        let squares = n * n;
        let full = (1u32 << squares) - 1;
        let sq = |r: u32, c: u32| r * n + c;
        let mut border = 0;
        let mut corners = 0;
        for r in 0..n {
            for c in 0..n {
                let on_row = r == 0 || r == n - 1;
                let on_col = c == 0 || c == n - 1;
                if on_row || on_col {
                    border |= 1 << sq(r, c);
                }
                if on_row && on_col {
                    corners |= 1 << sq(r, c);
                }
            }
        }
        let mut pushes = Vec::new();
        let mut pushes_from = Vec::new();
        for s in 0..squares {
            let start = pushes.len();
            if border >> s & 1 == 1 {
                let (r, c) = (s / n, s % n);
                // The four ends of the square's row and column, each unless the cube would come back where it was.
                let ends = [(r, 0), (r, n - 1), (0, c), (n - 1, c)];
                for (er, ec) in ends {
                    if (er, ec) == (r, c) {
                        continue;
                    }
                    pushes.push(push(n, s, sq(er, ec)));
                }
            }
            pushes_from.push(start..pushes.len());
        }
        let mut pushes_by_end = Vec::new();
        let mut pushes_to = Vec::new();
        for s in 0..squares {
            let start = pushes_by_end.len();
            pushes_by_end.extend(pushes.iter().filter(|p| u32::from(p.to) == s));
            pushes_to.push(start..pushes_by_end.len());
        }
        let mut lines = Vec::new();
        for i in 0..n {
            lines.push((0..n).fold(0, |m, c| m | 1 << sq(i, c)));
            lines.push((0..n).fold(0, |m, r| m | 1 << sq(r, i)));
        }
        lines.push((0..n).fold(0, |m, i| m | 1 << sq(i, i)));
        lines.push((0..n).fold(0, |m, i| m | 1 << sq(i, n - 1 - i)));
        let mut line_bits = vec![0u64; (1usize << squares).div_ceil(64)];
        for mask in 0..=full {
            if lines.iter().any(|&l| l & !mask == 0) {
                line_bits[(mask >> 6) as usize] |= 1 << (mask & 63);
            }
        }
        let chunks = squares.div_ceil(8) as usize;
        let image = std::array::from_fn(|g| {
            (0..chunks)
                .map(|chunk| {
                    std::array::from_fn(|byte| {
                        (0..8)
                            .filter(|k| byte >> k & 1 == 1)
                            .map(|k| 8 * chunk as u32 + k)
                            .filter(|&s| s < squares)
                            .fold(0, |m, s| m | 1 << symmetric_square(n, g, s))
                    })
                })
                .collect()
        });
        let move_count = (0..chunks)
            .map(|chunk| {
                std::array::from_fn(|byte| {
                    (0..8)
                        .filter(|k| byte >> k & 1 == 1)
                        .map(|k| 8 * chunk + k)
                        .filter(|&s| s < squares as usize)
                        .map(|s| pushes_from[s].len() as u8)
                        .sum()
                })
            })
            .collect();
        Geometry {
            n,
            squares,
            full,
            border,
            corners,
            edges: border & !corners,
            pushes,
            pushes_from,
            pushes_by_end,
            pushes_to,
            lines,
            line_bits,
            image,
            move_count,
        }
    }

    /// The most moves a position can have: 2 for a corner, 3 for another border square.
    pub fn max_moves(&self) -> u64 {
        u64::from(2 * self.corners.count_ones() + 3 * self.edges.count_ones())
    }

    /// Whether the squares of `mask` contain a whole line.
    #[inline(always)]
    pub fn has_line(&self, mask: u32) -> bool {
        self.line_bits[(mask >> 6) as usize] >> (mask & 63) & 1 == 1
    }

    /// The value of a board for its mover when the game is over on it: the mover wins when the board shows a line of
    /// theirs (the opponent made it, and a move making the opponent's line loses even if it makes one's own too);
    /// otherwise the mover has lost when it shows a line of the opponent's. `None` while the game goes on.
    #[inline(always)]
    pub fn over(&self, board: Board) -> Option<retro_game::Value> {
        if self.has_line(mine(board)) {
            Some(retro_game::Value::win(0))
        } else if self.has_line(theirs(board)) {
            Some(retro_game::Value::loss(0))
        } else {
            None
        }
    }

    /// Whether the game is over on the board.
    #[inline(always)]
    pub fn is_over(&self, board: Board) -> bool {
        self.has_line(mine(board)) || self.has_line(theirs(board))
    }

    /// The image of a mask of squares under symmetry `g` (`0..8`, 0 the identity).
    #[inline(always)]
    pub fn image(&self, g: usize, mask: u32) -> u32 {
        let table = &self.image[g];
        let mut out = 0;
        for (chunk, bytes) in table.iter().enumerate() {
            out |= bytes[(mask >> (8 * chunk) & 0xff) as usize];
        }
        out
    }

    /// The image of a board under symmetry `g`.
    #[inline(always)]
    pub fn image_board(&self, g: usize, board: Board) -> Board {
        pack(self.image(g, mine(board)), self.image(g, theirs(board)))
    }

    /// The number of in-table moves of a board: its mover's cubes on the border, each with its pushes.
    #[inline(always)]
    pub fn own_moves(&self, board: Board) -> u64 {
        // A table per byte of squares rather than `count_ones`, which the baseline x86-64 target has no instruction
        // for.
        let m = mine(board);
        let mut moves = 0;
        for (chunk, bytes) in self.move_count.iter().enumerate() {
            moves += u64::from(bytes[(m >> (8 * chunk) & 0xff) as usize]);
        }
        moves
    }
}

/// The push that takes the cube at `from` and re-enters it at `to`, on the same row or column.
fn push(n: u32, from: u32, to: u32) -> Push {
    // The step from `to` towards `from`: the direction the cubes between slide.
    let step: i32 = if from / n == to / n {
        if from > to { 1 } else { -1 }
    } else if from > to {
        n as i32
    } else {
        -(n as i32)
    };
    let mut slide = 0u32;
    let mut s = to as i32;
    while s != from as i32 {
        slide |= 1 << s;
        s += step;
    }
    let slid = if step > 0 {
        slide << step
    } else {
        slide >> -step
    };
    Push {
        from: from as u8,
        to: to as u8,
        from2: both(1 << from),
        to2: both(1 << to),
        slide2: both(slide),
        slid2: both(slid),
        left: step.max(0) as u32,
        right: (-step).max(0) as u32,
    }
}

/// The square `s` of an `n × n` board under symmetry `g`: bit 0 mirrors the columns, bit 1 the rows, bit 2
/// transposes (after the mirrors).
pub fn symmetric_square(n: u32, g: usize, s: u32) -> u32 {
    let (mut r, mut c) = (s / n, s % n);
    if g & 1 != 0 {
        c = n - 1 - c;
    }
    if g & 2 != 0 {
        r = n - 1 - r;
    }
    if g & 4 != 0 {
        std::mem::swap(&mut r, &mut c);
    }
    r * n + c
}

/// The geometry of an `n × n` board, built on first use.
pub fn geometry(n: u32) -> &'static Geometry {
    static TABLES: [std::sync::OnceLock<Geometry>; 3] = [const { std::sync::OnceLock::new() }; 3];
    TABLES[(n - 3) as usize].get_or_init(|| Geometry::new(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pushes of a square as the rules count them, on a board of cells.
    fn naive_push(n: u32, cells: &[u8], from: u32, to: u32) -> Vec<u8> {
        let mut cells = cells.to_vec();
        let (fr, fc, tr, tc) = (from / n, from % n, to / n, to % n);
        let line: Vec<u32> = if fr == tr {
            (0..n).map(|c| fr * n + c).collect()
        } else {
            (0..n).map(|r| r * n + fc).collect()
        };
        let (f, t) = if fr == tr { (fc, tc) } else { (fr, tr) };
        let mut values: Vec<u8> = line.iter().map(|&s| cells[s as usize]).collect();
        values.remove(f as usize);
        values.insert(t as usize, 1);
        for (s, v) in line.iter().zip(values) {
            cells[*s as usize] = v;
        }
        cells
    }

    fn to_board(cells: &[u8]) -> Board {
        let mut b = 0;
        for (s, &v) in cells.iter().enumerate() {
            match v {
                1 => b |= 1 << s,
                2 => b |= 1 << (HALF as usize + s),
                _ => {}
            }
        }
        b
    }

    #[test]
    fn pushes_match_the_rules_and_undo() {
        for n in 3..=5 {
            let geo = Geometry::new(n);
            assert_eq!(geo.max_moves(), u64::from(12 * n - 16));
            assert_eq!(geo.pushes.len() as u64, geo.max_moves());
            let mut seed = 12345u64;
            for _ in 0..2000 {
                let cells: Vec<u8> = (0..n * n)
                    .map(|_| {
                        seed = seed
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        (seed >> 33) as u8 % 3
                    })
                    .collect();
                let board = to_board(&cells);
                for p in &geo.pushes {
                    if cells[p.from as usize] == 2 {
                        continue;
                    }
                    let after = p.apply(board);
                    assert_eq!(
                        after,
                        to_board(&naive_push(n, &cells, p.from.into(), p.to.into()))
                    );
                    assert!(p.undoable(after));
                    if cells[p.from as usize] == 1 {
                        assert_eq!(p.undo(after), board);
                    }
                }
            }
        }
    }

    #[test]
    fn symmetries_form_the_group_of_the_square() {
        for n in 3..=5 {
            let geo = Geometry::new(n);
            let mut images: Vec<Vec<u32>> = (0..8)
                .map(|g| {
                    (0..n * n)
                        .map(|s| geo.image(g, 1 << s).trailing_zeros())
                        .collect()
                })
                .collect();
            images.sort();
            images.dedup();
            assert_eq!(images.len(), 8);
            // Lines go to lines.
            for g in 0..8 {
                for &l in &geo.lines {
                    assert!(geo.lines.contains(&geo.image(g, l)));
                }
            }
        }
    }
}
