import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import ServiceHTTP

/// The console's pages: Mustache templates (which escape every value they show) around one
/// layout, answered with headers that keep them out of frames and caches and allow no script.
struct ConsolePages: Sendable {
    let library: MustacheLibrary

    init() throws {
        var library = MustacheLibrary()
        for (name, text) in Self.templates { try library.register(text, named: name) }
        self.library = library
    }

    /// The page `name` rendered with `values` (the layout reads `moderator`, `csrf`, `flash`
    /// and `error`).
    func page(_ name: String, _ values: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        let html = library.render(values, withTemplate: name) ?? ""
        var headers = Self.securityHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// A page saying what went wrong, with the error's status.
    func failure(_ error: ServiceError, back: String, visit: ConsoleGate.Visit?) -> Response {
        var values: [String: Any] = ["heading": "That did not work", "error": error.message, "back": back]
        if let visit { values.merge(visit.layout) { own, _ in own } }
        return page("message", values, status: .init(code: error.code.status))
    }

    /// A kind of object as a heading names it.
    static func kind(_ type: ReportTargetType) -> String {
        switch type {
        case .user: "Profile"
        case .post: "Post"
        case .reply: "Reply"
        case .snap: "Snap"
        case .challengeClip: "Challenge clip"
        case .spot: "Spot"
        case .message: "Message"
        case .media: "Held photo or video"
        }
    }

    /// A weight as the console shows it (two decimals at most).
    static func weight(_ value: Double) -> String {
        String(format: "%.2f", value).replacingOccurrences(of: #"\.?0+$"#, with: "", options: .regularExpression)
    }

    /// A 303 to `location` (after a form), with `cookies` set.
    static func redirect(to location: String, cookies: [String] = []) -> Response {
        var headers = securityHeaders
        headers[.location] = location
        for cookie in cookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return Response(status: .seeOther, headers: headers)
    }

    static let securityHeaders: HTTPFields = .htmlPage(styleSource: "'self'")

    static let templates: [String: String] = [
        "layout": """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{$title}}Moderation{{/title}} · Pinhole</title>
        <link rel="stylesheet" href="/console/console.css">
        </head>
        <body>
        <header>
        <span class="brand">Pinhole moderation</span>
        {{#moderator}}
        <nav><a href="/console/queue">Queue</a><a href="/console/appeals">Appeals</a><a href="/console/audit">Audit log</a></nav>
        <form method="post" action="/console/sign-out" class="inline"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Sign out</button></form>
        {{/moderator}}
        </header>
        <main>
        {{#flash}}<p class="flash" role="status">{{flash}}</p>{{/flash}}
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        {{$content}}{{/content}}
        </main>
        </body>
        </html>
        """,
        "message": """
        {{<layout}}{{$title}}{{heading}}{{/title}}{{$content}}
        <h1>{{heading}}</h1>
        <p><a href="{{back}}">Back</a></p>
        {{/content}}{{/layout}}
        """,
        "sign-in": """
        {{<layout}}{{$title}}Sign in{{/title}}{{$content}}
        <h1>Sign in</h1>
        <p>With your own Pinhole account; it must hold the moderator or admin role.</p>
        <form method="post" action="/console/sign-in" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label>Email <input type="email" name="email" id="email" autocomplete="username" required value="{{email}}"></label>
        <label>Password <input type="password" name="password" id="password" autocomplete="current-password" required></label>
        <button type="submit" id="sign-in">Sign in</button>
        </form>
        {{/content}}{{/layout}}
        """,
        "queue": """
        {{<layout}}{{$title}}Queue{{/title}}{{$content}}
        <h1>Queue</h1>
        {{^items}}<p class="empty">Nothing waits: no open reports.</p>{{/items}}
        <ul class="cards">
        {{#items}}
        <li class="card">
        <a class="object" href="/console/objects/{{type}}/{{id}}">{{kind}} by {{owner}}</a>
        <p class="excerpt">{{excerpt}}</p>
        <p class="meta">{{reportCount}} open reports · weight {{weight}}{{#hidden}} · <span class="badge">hidden</span>{{/hidden}} · waiting since {{since}}</p>
        </li>
        {{/items}}
        </ul>
        {{#next}}<p><a href="/console/queue?cursor={{next}}">Later reports</a></p>{{/next}}
        {{/content}}{{/layout}}
        """,
        "object": """
        {{<layout}}{{$title}}{{kind}}{{/title}}{{$content}}
        <h1>{{kind}} <small>{{id}}</small></h1>
        <section class="card">
        <p class="meta">By {{owner}} ({{ownerId}}){{#created}} · posted {{created}}{{/created}}{{#hidden}} · <span class="badge">hidden</span>{{/hidden}}</p>
        {{#text}}<blockquote id="content">{{text}}</blockquote>{{/text}}
        {{^exists}}<p class="empty">It no longer exists.</p>{{/exists}}
        {{#media}}<figure class="media"><img src="/console/objects/{{type}}/{{id}}/media/{{.}}" alt="Picture {{.}}" width="300" height="300"><figcaption class="meta">Media {{.}}</figcaption></figure>{{/media}}
        </section>
        <h2>Reports</h2>
        {{^reports}}<p class="empty">None.</p>{{/reports}}
        <ul class="cards" id="reports">
        {{#reports}}<li class="card"><strong>{{reason}}</strong>{{#details}}: {{details}}{{/details}}
        <p class="meta">by {{reporter}} · weight {{weight}} · {{status}} · {{when}}</p></li>{{/reports}}
        </ul>
        <h2>Its owner's history</h2>
        {{^history}}<p class="empty">No earlier actions.</p>{{/history}}
        <ul>{{#history}}<li>{{when}}: {{action}} by {{moderator}}: {{reason}}{{#reversed}} (reversed){{/reversed}}</li>{{/history}}</ul>
        <h2>Act</h2>
        <form method="post" action="/console/objects/{{type}}/{{id}}/actions" class="stack" id="act">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label>Action <select name="action" id="action">
        <option value="dismiss">Dismiss the reports</option>
        {{#removable}}<option value="remove">Remove it</option>{{/removable}}
        <option value="warn">Warn its owner</option>
        <option value="suspend">Suspend its owner</option>
        <option value="ban">Ban its owner</option>
        </select></label>
        <label>Hours, for a suspension <input type="number" name="durationHours" id="durationHours" min="1" max="8760" placeholder="168"></label>
        <label>Reason (the user is told it) <textarea name="reason" id="reason" required maxlength="500"></textarea></label>
        <button type="submit" id="take-action">Take action</button>
        </form>
        {{/content}}{{/layout}}
        """,
        "appeals": """
        {{<layout}}{{$title}}Appeals{{/title}}{{$content}}
        <h1>Appeals</h1>
        {{^items}}<p class="empty">No appeal waits.</p>{{/items}}
        <ul class="cards">
        {{#items}}
        <li class="card" id="appeal-{{appealId}}">
        <p><strong>{{action}}</strong> of {{user}} by {{moderator}} on <a href="/console/objects/{{targetType}}/{{targetId}}">{{targetType}}</a>: {{reason}}</p>
        <blockquote>{{statement}}</blockquote>
        {{#mine}}<p class="meta">You took this action: another moderator decides.</p>{{/mine}}
        {{^mine}}
        <form method="post" action="/console/appeals/{{appealId}}/decision" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label>Outcome <select name="outcome"><option value="reverse">Reverse: undo the action</option><option value="uphold">Uphold: it stands</option></select></label>
        <label>Reason (the user is told it) <textarea name="reason" required maxlength="500"></textarea></label>
        <button type="submit">Decide</button>
        </form>
        {{/mine}}
        </li>
        {{/items}}
        </ul>
        {{/content}}{{/layout}}
        """,
        "audit": """
        {{<layout}}{{$title}}Audit log{{/title}}{{$content}}
        <h1>Audit log</h1>
        <form method="get" action="/console/audit" class="inline">
        <label>User <input type="text" name="userId" value="{{userId}}" placeholder="user id"></label>
        <button type="submit">Filter</button>
        </form>
        <div class="scroll"><table id="audit">
        <thead><tr><th>When</th><th>Who</th><th>What</th><th>Object</th><th>User</th><th>Why</th></tr></thead>
        <tbody>
        {{#items}}<tr><td>{{when}}</td><td>{{actor}}</td><td>{{event}}</td><td>{{#targetId}}<a href="/console/objects/{{targetType}}/{{targetId}}">{{targetType}}</a>{{/targetId}}</td><td>{{user}}</td><td>{{reason}}</td></tr>{{/items}}
        </tbody></table></div>
        {{#next}}<p><a href="/console/audit?cursor={{next}}{{#userId}}&amp;userId={{userId}}{{/userId}}">Older entries</a></p>{{/next}}
        {{/content}}{{/layout}}
        """,
    ]

    /// The console's style sheet: one column on a phone, wider on a laptop.
    static let stylesheet = """
        :root { color-scheme: light dark; --accent: #d9480f; font-family: system-ui, sans-serif; }
        body { margin: 0; line-height: 1.45; }
        header { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; padding: .75rem 1rem;
          border-bottom: 1px solid #8884; }
        header .brand { font-weight: 700; margin-right: auto; }
        nav { display: flex; gap: .75rem; flex-wrap: wrap; }
        nav a { color: inherit; }
        main { max-width: 60rem; margin: 0 auto; padding: 1rem; }
        .cards { list-style: none; padding: 0; display: grid; gap: .75rem; }
        .card { border: 1px solid #8886; border-radius: .5rem; padding: .75rem 1rem; }
        .card a.object { font-weight: 600; }
        .meta { color: #888; font-size: .9rem; margin: .25rem 0; overflow-wrap: anywhere; }
        .excerpt, blockquote { overflow-wrap: anywhere; }
        blockquote { margin: .5rem 0; padding-left: .75rem; border-left: 3px solid var(--accent); }
        .badge { background: var(--accent); color: #fff; border-radius: .25rem; padding: 0 .35rem; }
        .flash { background: #2b8a3e22; padding: .5rem .75rem; border-radius: .25rem; }
        .error { background: #c92a2a22; padding: .5rem .75rem; border-radius: .25rem; }
        .empty { color: #888; }
        .stack { display: grid; gap: .6rem; max-width: 32rem; }
        .stack label { display: grid; gap: .2rem; }
        .inline { display: flex; gap: .5rem; align-items: end; flex-wrap: wrap; }
        input, select, textarea, button { font: inherit; padding: .45rem .6rem; border-radius: .3rem;
          border: 1px solid #8888; }
        textarea { min-height: 5rem; }
        button { background: var(--accent); color: #fff; border: 0; cursor: pointer; }
        .scroll { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; font-size: .9rem; }
        th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #8884; vertical-align: top;
          overflow-wrap: anywhere; }
        h1 small { font-size: .8rem; color: #888; font-weight: 400; overflow-wrap: anywhere; }
        figure.media { display: inline-block; margin: .5rem .5rem 0 0; }
        figure.media img { max-width: 100%; height: auto; background: #8882; border-radius: .25rem; }
        @media (max-width: 40rem) { main { padding: .75rem; } th, td { padding: .3rem; } }
        """
}
