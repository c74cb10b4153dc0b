import Foundation

/// The daily prompts: an operator's list (or the built-in one), one per local day, the same for
/// everyone whose day it is. Consecutive days take consecutive entries; the built-in list
/// alternates its six categories so that no two days in a row share one.
struct PromptBook: Sendable, Equatable {
    struct Prompt: Codable, Sendable, Equatable {
        var text: String
        var category: String
        var emoji: String
    }

    static let maxTextLength = 100
    static let maxEmojiLength = 10

    let prompts: [Prompt]

    /// The prompt of `day` (every zone whose date it is gets the same one).
    func prompt(for day: LocalDay) -> Prompt {
        let count = prompts.count
        return prompts[((day.ordinal % count) + count) % count]
    }

    /// Reads an operator's list: a JSON array of `{"text", "category", "emoji"}`.
    static func load(_ url: URL) throws -> PromptBook {
        let prompts = try JSONDecoder().decode([Prompt].self, from: Data(contentsOf: url))
        guard !prompts.isEmpty else { throw PromptBookError("\(url.path) holds no prompts") }
        for prompt in prompts {
            guard !prompt.text.isEmpty, prompt.text.count <= maxTextLength, prompt.emoji.count <= maxEmojiLength,
                !prompt.category.isEmpty
            else {
                throw PromptBookError(
                    "\(url.path): each prompt needs a text of 1–\(maxTextLength) characters, a category and an emoji")
            }
        }
        return PromptBook(prompts: prompts)
    }

    struct PromptBookError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The built-in list: 17 prompts in each of six categories, interleaved.
    static let builtIn: PromptBook = {
        let categories: [(String, String, [String])] = [
            (
                "food", "🍽️",
                [
                    "Show your lunch", "Your breakfast today", "Something sweet", "What's in your fridge",
                    "Your favourite snack", "Something spicy", "Your drink right now", "A fruit",
                    "Something you cooked", "Your coffee or tea", "Dinner plans", "Something crunchy",
                    "A meal with someone", "Street food", "Something green to eat", "Your comfort food",
                    "Something homemade",
                ]
            ),
            (
                "color", "🔵",
                [
                    "Something blue", "Something red", "Something yellow", "All black", "Something pink",
                    "A rainbow of things", "Something orange", "Something purple", "Pure white",
                    "Something green", "Something gold", "Two colours that clash", "Pastel everything",
                    "Something neon", "Your favourite colour", "Something brown", "Something silver",
                ]
            ),
            (
                "view", "👀",
                [
                    "Your view right now", "Look up", "Out of the window", "The sky today", "Your street",
                    "Somewhere you walk past daily", "A reflection", "Your desk", "A shadow", "The horizon",
                    "Something from above", "Something from below", "A doorway", "Where you're sitting",
                    "Light through something", "A path", "The best view nearby",
                ]
            ),
            (
                "mood", "😊",
                [
                    "How you're feeling", "Your face right now", "Something that made you smile",
                    "Your energy today", "Something calming", "What's stressing you", "A tiny win",
                    "Something you're grateful for", "Your Monday mood", "Something cosy",
                    "What you're excited about", "Something that annoys you", "Your happy place",
                    "Something nostalgic", "A silly face", "Something peaceful", "Your vibe in one photo",
                ]
            ),
            (
                "object", "🏺",
                [
                    "Something old", "Something new", "Something you can't live without", "Your keys",
                    "Something tiny", "Something round", "A gift you love", "Something handmade",
                    "Your shoes today", "Something with a story", "Something soft", "A book",
                    "Something broken", "Something shiny", "Your favourite mug", "Something you collect",
                    "Something on your wall",
                ]
            ),
            (
                "activity", "🏃",
                [
                    "What you're doing", "Your workout", "Your commute", "Something you're learning",
                    "Your hobby", "Where you're going", "Something you're making", "Your break",
                    "A game you're playing", "Your music right now", "Something outdoors",
                    "What you're reading", "Your to-do list", "A chore", "Something with friends",
                    "Your evening plans", "Something you've never done",
                ]
            ),
        ]
        var prompts: [Prompt] = []
        for index in 0..<17 {
            for (category, emoji, texts) in categories {
                prompts.append(Prompt(text: texts[index], category: category, emoji: emoji))
            }
        }
        return PromptBook(prompts: prompts)
    }()
}
