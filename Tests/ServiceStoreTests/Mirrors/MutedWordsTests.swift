import ServiceHTTP
import ServiceStore
import Testing

@Suite struct MutedWordsTests {
    @Test(arguments: [
        ("spoiler", "Huge SPOILER ahead", true),
        ("spoiler", "no spoilers here", false),
        ("cafe", "Meet me at the Café!", true),
        ("Café", "meet me at the cafe", true),
        ("cafe", "the cafeteria", false),
        ("game of thrones", "Game  of\nThrones, again", true),
        ("game of thrones", "game thrones of", false),
        ("#finale", "tonight's finale was long", true),
        ("ｆｕｌｌ width", "full WIDTH text", true),
        ("zürich", "ZURICH 2026", true),
    ])
    func aPhraseMutesWholeWordsInOrderWhateverTheCaseAndAccents(phrase: String, text: String, muted: Bool) {
        #expect(MutedWords([phrase]).matches(text) == muted)
    }

    @Test func phrasesWithoutWordsMuteNothingAndKeysFoldAsTheMatchDoes() {
        #expect(MutedWords(["!!!", "  "]).isEmpty)
        #expect(!MutedWords(["!!!"]).matches("!!!"))
        #expect(MutedWords.key("  Café  au-LAIT ") == "cafe au lait")
        #expect(MutedWords(["a", "b"]).matches("x b y"))
    }
}
