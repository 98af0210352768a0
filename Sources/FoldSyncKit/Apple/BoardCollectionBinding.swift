#if canImport(UIKit)
import FoldCore
import Observation
import UIKit

/// A `UICollectionView` bound to a `BoardModel`: one collection section per
/// board section, its items while it is open, and a header whose tap sends
/// `toggle` (the daemon's rules, the accordion included, decide the rest).
/// Every decision is `SectionList`'s and `BoardModel`'s; this file only
/// hands their values to UIKit. It is compiled on Apple platforms only and
/// has not been built on the Linux machine this library is tested on.
@MainActor
public final class BoardCollectionBinding {
    public typealias DataSource = UICollectionViewDiffableDataSource<String, SectionList.ItemID>
    public let dataSource: DataSource
    public let model: BoardModel
    private var shown = SectionList(nil)

    /// `cell` makes the cell of an item; `header` the view of a section's
    /// header, given its title, whether it is open, and the tap to attach to
    /// its button. Register both kinds with the collection view first.
    public init(collectionView: UICollectionView, model: BoardModel,
                cell: @escaping (UICollectionView, IndexPath, Item) -> UICollectionViewCell,
                header: @escaping (UICollectionView, IndexPath, _ title: String, _ open: Bool, _ tap: @escaping () -> Void) -> UICollectionReusableView) {
        self.model = model
        let dataSource = DataSource(collectionView: collectionView) { view, path, id in
            cell(view, path, model.list.item(id) ?? Item(label: ""))
        }
        dataSource.supplementaryViewProvider = { view, _, path in
            let list = model.list
            let id = list.sections[path.section]
            return header(view, path, list.titles[id] ?? id, list.open.contains(id)) {
                // A refusal is rolled back by the model and told on its `changes()`.
                Task { @MainActor in _ = try? await model.toggle(id) }
            }
        }
        self.dataSource = dataSource
        apply(animated: false)
        observe()
    }

    /// Shows the model's board; headers of sections that opened, closed or changed are redrawn.
    public func apply(animated: Bool = true) {
        let list = model.list
        var snapshot = NSDiffableDataSourceSnapshot<String, SectionList.ItemID>()
        snapshot.appendSections(list.sections)
        for id in list.sections { snapshot.appendItems(list.shownItems(of: id), toSection: id) }
        let changes = list.changes(since: shown)
        snapshot.reloadSections(changes.opened + changes.closed + changes.reloaded)
        shown = list
        dataSource.apply(snapshot, animatingDifferences: animated)
    }

    private func observe() {
        withObservationTracking { _ = model.board } onChange: { [weak self] in
            Task { @MainActor in
                self?.apply()
                self?.observe()
            }
        }
    }
}
#endif
