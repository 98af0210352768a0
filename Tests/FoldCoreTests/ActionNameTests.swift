import Testing
@testable import FoldCore

/// The action table: one name per action, read the same way by the decoder
/// and the permission check.
struct ActionNameTests {
    /// One action of every kind, in table order.
    static let samples: [Action] = [
        .toggle(section: "s0"), .expand(section: "s0"), .collapse(section: "s0"), .expandAll, .collapseAll,
        .setMode(.multi), .addSection(SectionDraft(title: "t"), at: nil), .removeSection(section: "s0"),
        .moveSection(section: "s0", to: 1), .setTitle(section: "s0", title: "t"),
        .setItems(section: "s0", items: []), .replace(.initial), .focus(section: "s0", item: 0), .clearFocus, .revert(rev: 1),
    ]

    @Test func everyActionHasItsOwnName() {
        #expect(Self.samples.map(\.kind) == ActionName.allCases)
        #expect(Set(ActionName.allCases.map(\.rawValue)).count == ActionName.allCases.count)
        for a in Self.samples { #expect(a.name == a.kind.rawValue) }
    }

    @Test func permissionsFollowTheTable() {
        let fold: [ActionName] = [.toggle, .expand, .collapse, .expandAll, .collapseAll, .focus, .clearFocus]
        for name in ActionName.allCases {
            // A revert needs one that changes something, then what the change it undoes needed (checked by the hub).
            let expected: Permission = name == .revert ? [.fold, .edit, .admin]
                : fold.contains(name) ? .fold : name == .replace ? .admin : .edit
            #expect(name.permission == expected, "\(name)")
            #expect(name.isFold == fold.contains(name))
        }
        for a in Self.samples { #expect(Permission.required(for: a) == a.kind.permission) }
    }

    @Test func everyNameDecodesAndNothingElseDoes() throws {
        for name in ActionName.allCases {
            let json = try JSONParser.parse(Array(#"{"type":"\#(name.rawValue)","board":"b"}"#.utf8))
            // Missing fields are bad_request, never unknown_type: the decoder knows the name.
            if case .failure(let e) = ClientMessage.decode(json, limits: .defaults) {
                #expect(e.code != .unknownType, "\(name)")
            }
        }
        let unknown = try JSONParser.parse(Array(#"{"type":"Toggle","board":"b"}"#.utf8))
        guard case .failure(let e) = ClientMessage.decode(unknown, limits: .defaults) else {
            Issue.record("an unknown type decoded"); return
        }
        #expect(e.code == .unknownType)
    }
}
