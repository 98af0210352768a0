// The seed's screen in SwiftUI: the `default` board as a list of disclosure
// groups, folded in sync with the dashboard and the terminal client.
// iOS 17+ or macOS 14+. See README.md beside this file.

import FoldSyncKit
import SwiftUI

@main
struct SeedApp: App {
    /// `make run` serves here; from a device, use the Mac's address instead.
    @State private var session = FoldSyncSession(url: URL(string: "ws://127.0.0.1:7681/ws")!)
    @Environment(\.scenePhase) private var phase

    var body: some Scene {
        WindowGroup {
            SeedView(session: session)
        }
        // The app's life: suspended in the background (the outbox is kept), resumed on the way back.
        .onChange(of: phase) { _, phase in
            switch phase {
            case .background: session.suspend()
            case .active: session.resume()
            default: break
            }
        }
    }
}

struct SeedView: View {
    let session: FoldSyncSession
    @State private var board: BoardModel?
    @State private var failure: String?

    var body: some View {
        NavigationStack {
            Group {
                if let board {
                    BoardDisclosureList(model: board) { item in
                        Text(item.label)
                    }
                } else {
                    ProgressView(failure ?? "Connecting…")
                }
            }
            .navigationTitle("default")
            .toolbar { Text("\(session.state)").font(.caption) }
        }
        .task {
            do { board = try await session.board("default") } catch { failure = "\(error)" }
        }
    }
}
