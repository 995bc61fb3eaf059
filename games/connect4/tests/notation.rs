//! Variants, positions and moves in text, and the errors for bad input.

use retro_connect4::{Board, ConnectFour, Shape, Tier};
use retro_family::{Family, Flags, Location, NoPayloads, Played};

fn read(text: &str) -> Board {
    ConnectFour.parse_position(text, &NoPayloads).unwrap()
}

fn words(w: &[&str]) -> Vec<String> {
    w.iter().map(|s| s.to_string()).collect()
}

#[test]
fn variants_and_tables() {
    let shape = ConnectFour
        .parse_variant(&words(&["6x5"]), &Flags::default())
        .unwrap();
    assert_eq!(shape.to_string(), "6x5");
    let tables = ConnectFour.tables(&shape);
    assert_eq!(tables.len(), 31);
    // Each tier after the tier it reads.
    for (i, tier) in tables.iter().enumerate() {
        for dep in ConnectFour.dependencies(tier) {
            assert!(tables[..i].contains(&dep), "{tier} before {dep}");
        }
    }
    assert_eq!(ConnectFour.table_name(&tables[0]), "6x5-30");
    assert_eq!(ConnectFour.table_name(&tables[30]), "6x5-00");
    assert!(ConnectFour.dependencies(&tables[0]).is_empty());
    assert_eq!(ConnectFour.sides(&tables[0]), ["x"]);
    assert_eq!(ConnectFour.sides(&tables[1]), ["o"]);
    let all = ConnectFour.all(20).unwrap();
    let names: Vec<String> = all.iter().map(|s| s.to_string()).collect();
    assert_eq!(names, ["4x4", "4x5", "5x4"]);
    assert!(ConnectFour.all(10).is_err());
    let about = ConnectFour.about();
    assert_eq!((about.name, about.example_variant), ("connect4", "6x5"));
    assert!(
        ConnectFour
            .parse_position(about.example_position, &NoPayloads)
            .is_ok()
    );
}

#[test]
fn positions_locate_moves_and_show() {
    let start = ConnectFour.start(&Shape::parse("6x5").unwrap()).unwrap();
    assert_eq!(
        ConnectFour.show_position(&start),
        "6x5/....../....../....../....../......"
    );
    assert_eq!(read("6x5:"), start);
    let Ok(Location::Stored { table, index }) = ConnectFour.locate(&start) else {
        panic!()
    };
    assert_eq!((table.stones, index), (0, 0));

    let board = read("4x4:2233");
    assert_eq!(ConnectFour.show_position(&board), "4x4/..../..../.oo./.xx.");
    let moves = ConnectFour.moves(&board);
    let names: Vec<String> = moves.iter().map(|(m, _)| m.to_string()).collect();
    assert_eq!(names, ["1", "2", "3", "4"]);
    let Played::Position(after) = &moves[3].1 else {
        panic!()
    };
    assert_eq!(ConnectFour.show_position(after), "4x4/..../..../.oo./.xxx");
    let Ok(Location::Stored { table, .. }) = ConnectFour.locate(after) else {
        panic!()
    };
    assert_eq!(
        table,
        Tier {
            shape: board.shape(),
            stones: 5
        }
    );

    // A finished game has no moves, and is still stored.
    let won = read("4x4:2233441");
    assert_eq!(ConnectFour.show_position(&won), "4x4/..../..../.ooo/xxxx");
    assert!(ConnectFour.moves(&won).is_empty());
    assert_eq!(ConnectFour.flags(&won), [("game_over", true)]);
    assert!(matches!(
        ConnectFour.locate(&won),
        Ok(Location::Stored { .. })
    ));
    assert_eq!(
        ConnectFour.diagram(&won).lines().last(),
        Some("1 2 3 4  x has four in a row")
    );
}

#[test]
fn bad_input_is_refused_in_one_line() {
    let error = |text: &str| ConnectFour.parse_position(text, &NoPayloads).unwrap_err();
    for (text, expected) in [
        ("", "expected WxH:MOVES or WxH/ROW/.../ROW"),
        ("4453", "expected WxH:MOVES or WxH/ROW/.../ROW"),
        ("8x5:44", "board 8x5 is out of range: 4 ≤ width, height ≤ 7"),
        ("6x:44", "expected WxH"),
        (
            "6x5:4473",
            "move 3 of \"6x5:4473\": '7' is no column of a 6x5 board (1 to 6)",
        ),
        ("6x5:40", "'0' is no column"),
        ("4x4:11111", "move 5 of \"4x4:11111\": column 1 is full"),
        (
            "4x4:12121213",
            "the game is over after move 7 (four in a row)",
        ),
        ("4x4:1234123421432143", ""),
        ("4x4/..../..../....", "has 3 rows, a 4x4 board has 4"),
        (
            "4x4/..../..../...../....",
            "row 3 of \"4x4/..../..../...../....\" (\".....\") has 5 cells",
        ),
        (
            "4x4/..../..../.z../....",
            "'z' in \"4x4/..../..../.z../....\" is no cell",
        ),
        ("4x4/..../..../.x../.o..", ""),
        ("4x4/..../..../.x../....", "a stone floats in column 2"),
        (
            "4x4/..../..../..../xx..",
            "x has as many stones as o or one more, not 2 and 0",
        ),
        ("4x4/..../..../..../o...", "not 0 and 1"),
        (
            "4x4/..../ooo./ooo./xxxx",
            "x has as many stones as o or one more",
        ),
        ("4x4/x.../xo../xo../xo..", ""),
        (
            "4x4/x.../xo../xo../xoo.",
            "x has four in a row, yet o moved after it",
        ),
        (
            "4x4/o.../ox../ox../oxxx",
            "o has four in a row, yet x moved after it",
        ),
        (
            "5x4/o...x/o...x/o...x/o...x",
            "both x and o have four in a row",
        ),
    ] {
        if expected.is_empty() {
            assert!(
                ConnectFour.parse_position(text, &NoPayloads).is_ok(),
                "{text}"
            );
            continue;
        }
        let e = error(text);
        assert!(e.contains(expected), "{text}: {e}");
        assert!(!e.contains('\n'), "{text}: {e}");
    }
    // A full board: no further move.
    assert!(
        error("4x4:12341234214321431")
            .contains("the game is over after move 16 (the board is full)")
    );

    let variant = |w: &[&str]| ConnectFour.parse_variant(&words(w), &Flags::default());
    assert_eq!(
        variant(&["8x5"]).unwrap_err(),
        "board 8x5 is out of range: 4 ≤ width, height ≤ 7"
    );
    assert_eq!(
        variant(&["3x4"]).unwrap_err(),
        "board 3x4 is out of range: 4 ≤ width, height ≤ 7"
    );
    assert!(variant(&["6by5"]).unwrap_err().starts_with("expected WxH"));
    assert!(variant(&[]).is_err());
    assert!(variant(&["6x5", "7x4"]).is_err());
    let misere = Flags {
        misere: true,
        ..Flags::default()
    };
    assert_eq!(
        ConnectFour
            .parse_variant(&words(&["6x5"]), &misere)
            .unwrap_err(),
        "--misere does not apply to connect4"
    );
}
