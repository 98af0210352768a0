import Testing
@testable import FoldCore

/// Random action sequences (including ones that must fail) against several
/// boards: every accepted change's patch must reproduce its board exactly,
/// and the shared focus always points at an existing item or is absent.
@Suite struct ActionPropertyTests {
    static let seeds: [UInt64] = [1, 2, 3, 0xF01D, 0xC0FFEE]

    @Test(arguments: seeds)
    func patchesReproduceBoards(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        var boards: [Board] = [.initial, bigBoard(sections: 8, itemsPerSection: 2, mode: .multi), Board(mode: .single, sections: [])]
        var limits = Limits()
        limits.maxSections = 12
        limits.maxItems = 6
        limits.maxTitleBytes = 16
        var accepted = 0, noOps = 0, refused = 0, focused = 0, focusCleared = 0
        for _ in 0..<600 {
            let b = Int.random(in: 0..<boards.count, using: &rng)
            let old = boards[b]
            let action = randomAction(for: old, using: &rng)
            var result: Change? = nil
            var failed = false
            do throws(FoldError) {
                result = try old.applying(action, limits: limits)
            } catch {
                failed = true
            }
            if failed {
                refused += 1
            } else if let change = result {
                accepted += 1
                #expect(!change.ops.isEmpty)
                #expect(change.board != old, "\(action)")
                let patched = try JSONPatch.apply(change.ops, to: old.json)
                #expect(patched == change.board.json, "\(action) on \(text(old.encoded()))")
                // The patch must also survive the wire.
                let wire = try JSONParser.parse(PatchOp.encode(change.ops))
                #expect(try JSONPatch.apply(wire, to: old.json) == change.board.json)
                boards[b] = change.board
                if old.focus != nil, change.board.focus == nil { focusCleared += 1 }
            } else {
                noOps += 1
            }
            let board = boards[b]
            if board.mode == .single { #expect(board.sections.filter(\.expanded).count <= 1) }
            #expect(Set(board.sections.map(\.id)).count == board.sections.count)
            #expect(board.encodedByteCount() == board.encoded().count)
            #expect(throws: Never.self) { try Board(json: board.json, limits: limits) }
            #expect(board.focusIsValid, "focus \(String(describing: board.focus)) after \(action)")
            if let f = board.focus {
                focused += 1
                // The item the focus names is really there.
                #expect(board.sections.first { $0.id == f.section }.map { f.item < $0.items.count } == true)
            }
        }
        #expect(accepted > 100 && noOps > 10 && refused > 10)
        // The sequences do exercise the focus: set, kept and cleared by edits.
        #expect(focused > 20 && focusCleared > 2, "focused \(focused), cleared \(focusCleared)")
    }

    func randomAction(for board: Board, using rng: inout SplitMix64) -> Action {
        let ids = board.sections.map(\.id) + ["ghost"]
        let id = ids.randomElement(using: &rng)!
        let index = Int.random(in: -1...(board.sections.count + 1), using: &rng)
        let title = ["", "t", "Titre", "line\nbreak", "\u{2028}", String(repeating: "x", count: 20)].randomElement(using: &rng)!
        let items: [JSON] = (0..<Int.random(in: 0...7, using: &rng)).map { n in
            n % 3 == 2 ? .object(["label": .string("L\(n)"), "id": .string("k\(n)"), "n": .int(n)]) : .string("i\(n)")
        }.shuffled(using: &rng)
        let item = Int.random(in: -1...3, using: &rng)
        switch Int.random(in: 0..<20, using: &rng) {
        case 16, 17: return .focus(section: id, item: item)
        case 18: return .clearFocus
        case 19:
            // Items around the focused one: kept, shortened below it, or emptied.
            let keep = Int.random(in: 0...3, using: &rng)
            let old = board.sections.first { $0.id == id }?.items ?? []
            return .setItems(section: id, items: Array(old.prefix(keep)))
        case 0, 1, 2: return .toggle(section: id)
        case 3: return .expand(section: id)
        case 4: return .collapse(section: id)
        case 5: return .expandAll
        case 6: return .collapseAll
        case 7: return .setMode(Bool.random(using: &rng) ? .single : .multi)
        case 8:
            let newID: String? = [nil, "n\(Int.random(in: 0..<20, using: &rng))", id, "bad id"].randomElement(using: &rng)!
            let at: Int? = Bool.random(using: &rng) ? nil : index
            return .addSection(SectionDraft(id: newID, title: title, items: items, expanded: Bool.random(using: &rng)), at: at)
        case 9: return .removeSection(section: id)
        case 10, 11: return .moveSection(section: id, to: index)
        case 12: return .setTitle(section: id, title: title)
        case 13: return .setItems(section: id, items: items)
        default:
            var next = board
            if !next.sections.isEmpty, Bool.random(using: &rng) { next.sections.shuffle(using: &rng) }
            if Bool.random(using: &rng) { next.mode = next.mode == .single ? .multi : .single }
            if let i = next.sections.indices.randomElement(using: &rng) {
                next.sections[i].title = title
                next.sections[i].expanded.toggle()
                // Sometimes a focus of its own, which may point at nothing (refused).
                if Bool.random(using: &rng) { next.focus = Focus(section: next.sections[i].id, item: item) }
            }
            if Int.random(in: 0..<4, using: &rng) == 0 { next.focus = nil }
            return .replace(next)
        }
    }
}
