#if canImport(SwiftUI)
import FoldCore
import SwiftUI

/// A SwiftUI list of the board's sections, each a `DisclosureGroup` whose
/// open flag is the board's: opening or closing one sends `toggle`, and the
/// daemon's rules (the accordion included) decide what the others do. The
/// logic is `BoardModel`'s and `SectionList`'s; this view only binds them.
/// Compiled on Apple platforms only; not built on the Linux machine this
/// library is tested on.
public struct BoardDisclosureList<Row: View>: View {
    let model: BoardModel
    let row: (Item) -> Row

    public init(model: BoardModel, @ViewBuilder row: @escaping (Item) -> Row) {
        self.model = model
        self.row = row
    }

    public var body: some View {
        let list = model.list
        List {
            ForEach(list.sections, id: \.self) { id in
                DisclosureGroup(isExpanded: Binding(
                    get: { model.isOpen(id) },
                    set: { open in
                        guard open != model.isOpen(id) else { return }
                        // A refusal is rolled back by the model and told on its `changes()`.
                        Task { _ = try? await model.toggle(id) }
                    })) {
                    ForEach(list.items[id] ?? [], id: \.self) { itemID in
                        if let item = list.item(itemID) { row(item) }
                    }
                } label: {
                    Text(list.titles[id] ?? id)
                }
            }
        }
    }
}
#endif
