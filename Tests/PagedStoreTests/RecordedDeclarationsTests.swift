import Testing

@testable import PagedStore

/// What a feed's row records of its item type's declarations as a type opens it.
@Suite struct RecordedDeclarationsTests {
    @Test func aTypeThatDeclaresSomethingIsRecorded() {
        #expect(RecordedDeclarations.recorded("toot", over: nil, newModel: false) == "toot")
        #expect(RecordedDeclarations.recorded("post", over: "toot", newModel: false) == "post")
        #expect(RecordedDeclarations.recordedFields(["title"], over: ["body"], newModel: false) == ["title"])
        #expect(RecordedDeclarations.recordedFields(["title"], over: [], newModel: true) == ["title"])
    }

    @Test func aTypeThatDeclaresNothingWritesAsTheRowRecords() {
        #expect(RecordedDeclarations.recorded(String?.none, over: "toot", newModel: false) == "toot")
        #expect(RecordedDeclarations.recordedFields([], over: ["body"], newModel: false) == ["body"])
        #expect(RecordedDeclarations.recordedFields([], over: [], newModel: false) == [])
    }

    @Test func aNewModelRecordsWhatItsTypeDeclaresNothingIncluded() {
        #expect(RecordedDeclarations.recorded(String?.none, over: "toot", newModel: true) == nil)
        #expect(RecordedDeclarations.recordedFields([], over: ["body"], newModel: true) == [])
    }
}
