// The seed's screen, synced: the classic collapsible-section list (a
// collection view whose section headers are buttons; tapping a header opens
// its section and closes the open one), with its three arrays now the
// `default` board of foldsyncd. The accordion rule is the daemon's: every
// device showing the board folds together, and a tap shows at once.
// iOS 17+. See README.md beside this file.

import FoldSyncKit
import UIKit

final class SeedViewController: UIViewController {
    /// `make run` serves here; from a device, use the Mac's address instead.
    let session = FoldSyncSession(url: URL(string: "ws://127.0.0.1:7681/ws")!)
    private var binding: BoardCollectionBinding?
    private var collectionView: UICollectionView!

    override func viewDidLoad() {
        super.viewDidLoad()
        var config = UICollectionLayoutListConfiguration(appearance: .insetGrouped)
        config.headerMode = .supplementary
        collectionView = UICollectionView(frame: view.bounds, collectionViewLayout: UICollectionViewCompositionalLayout.list(using: config))
        collectionView.autoresizingMask = [.flexibleWidth, .flexibleHeight]
        collectionView.register(UICollectionViewListCell.self, forCellWithReuseIdentifier: "item")
        collectionView.register(HeaderView.self, forSupplementaryViewOfKind: UICollectionView.elementKindSectionHeader, withReuseIdentifier: "header")
        view.addSubview(collectionView)

        Task {
            do {
                let board = try await session.board("default")
                binding = BoardCollectionBinding(collectionView: collectionView, model: board, cell: { view, path, item in
                    let cell = view.dequeueReusableCell(withReuseIdentifier: "item", for: path) as! UICollectionViewListCell
                    var content = cell.defaultContentConfiguration()
                    content.text = item.label
                    content.secondaryText = item.detail
                    cell.contentConfiguration = content
                    return cell
                }, header: { view, path, title, open, tap in
                    let header = view.dequeueReusableSupplementaryView(ofKind: UICollectionView.elementKindSectionHeader,
                                                                       withReuseIdentifier: "header", for: path) as! HeaderView
                    header.show(title: title, open: open, tap: tap)
                    return header
                })
            } catch {
                title = "\(error)"
            }
        }
    }
}

/// The seed's header: a button with the section's title and an arrow.
final class HeaderView: UICollectionReusableView {
    private let button = UIButton(type: .system)
    private var tap: (() -> Void)?

    override init(frame: CGRect) {
        super.init(frame: frame)
        button.frame = bounds
        button.autoresizingMask = [.flexibleWidth, .flexibleHeight]
        button.contentHorizontalAlignment = .leading
        button.addAction(UIAction { [weak self] _ in self?.tap?() }, for: .touchUpInside)
        addSubview(button)
    }

    required init?(coder: NSCoder) { fatalError("not used from a storyboard") }

    func show(title: String, open: Bool, tap: @escaping () -> Void) {
        button.setTitle((open ? "▾ " : "▸ ") + title, for: .normal)
        self.tap = tap
    }
}

/// The app's life: iOS drops sockets in the background, so the session is
/// suspended there (the outbox is kept) and resumed on the way back.
final class SceneDelegate: UIResponder, UIWindowSceneDelegate {
    var window: UIWindow?
    let root = SeedViewController()

    func scene(_ scene: UIScene, willConnectTo session: UISceneSession, options: UIScene.ConnectionOptions) {
        guard let scene = scene as? UIWindowScene else { return }
        window = UIWindow(windowScene: scene)
        window?.rootViewController = UINavigationController(rootViewController: root)
        window?.makeKeyAndVisible()
    }

    func sceneDidEnterBackground(_ scene: UIScene) { root.session.suspend() }
    func sceneWillEnterForeground(_ scene: UIScene) { root.session.resume() }
}
