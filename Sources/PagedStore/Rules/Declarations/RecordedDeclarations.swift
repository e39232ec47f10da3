/// What a feed's row records of its item type's declarations (the name its items are shared under,
/// its searchable fields) when the feed opens. Pure.
///
/// The row records them so that every writer shares and indexes the feed's rows as the app's type
/// says, whatever it knows of the type (`pagedb`, another process). A type that declares something
/// is recorded: the app's next build may share or search otherwise. A type that declares nothing
/// writes as the row records: an extension whose model is smaller than the app's (a widget that
/// shows the feed without searching it) must not take the app's index or sharing away. A feed
/// emptied for a new ``FeedPolicy/cacheVersion`` (a new model) records what its type declares,
/// nothing included: that is how a build stops sharing or searching a feed.
enum RecordedDeclarations {
    /// The declaration the row records once a type that declares `declared` (nil: nothing) opens
    /// the feed whose row recorded `recorded`; `newModel` when the feed was emptied for a new cache
    /// version as it opened.
    static func recorded<Declaration>(
        _ declared: Declaration?, over recorded: Declaration?, newModel: Bool
    ) -> Declaration? {
        declared ?? (newModel ? nil : recorded)
    }

    /// The searchable fields the row records (see ``recorded(_:over:newModel:)``): none declared is
    /// nothing declared.
    static func recordedFields(_ declared: [String], over recorded: [String], newModel: Bool) -> [String] {
        Self.recorded(declared.isEmpty ? nil : declared, over: recorded.isEmpty ? nil : recorded, newModel: newModel)
            ?? []
    }
}
