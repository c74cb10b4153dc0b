import Foundation

/// `GET /internal/moderation-subjects/{type}/{id}` on the service that owns the object (see
/// ``ReportTargetType/owner``): the object as a moderator judges it. With `?viewer=<userId>`
/// the owner answers 404 unless that user can see the object (a reporter reports only what
/// they were shown).
public struct ModerationSubject: Codable, Sendable, Equatable {
    public var type: ReportTargetType
    public var id: String
    /// Whose object it is (the user themselves for `user`).
    public var ownerId: String
    /// Its words: a caption, a reply, a message, a spot's name and description, a profile's
    /// name and bio.
    public var text: String?
    /// Its photos and videos.
    public var mediaIds: [String]
    public var createdAt: Date

    public init(
        type: ReportTargetType, id: String, ownerId: String, text: String?, mediaIds: [String], createdAt: Date
    ) {
        self.type = type
        self.id = id
        self.ownerId = ownerId
        self.text = text
        self.mediaIds = mediaIds
        self.createdAt = createdAt
    }
}

/// What a moderator does about a reported object.
public enum ModerationActionKind: String, Codable, Sendable, CaseIterable {
    /// Nothing was wrong: its reports close and it is shown again if reports hid it.
    case dismiss
    /// The object goes for good (posts and replies).
    case remove
    /// Its author is told why, and nothing else happens.
    case warn
    /// Its author can read but not change anything until `endsAt`.
    case suspend
    /// Its author's sessions end and they cannot sign in again.
    case ban
}

/// `POST /v1/moderation/actions` (moderators).
public struct ModerationActionCreate: Codable, Sendable {
    public var targetType: ReportTargetType
    public var targetId: String
    public var action: ModerationActionKind
    /// Why, 1 to 500 characters; the user is told it.
    public var reason: String
    /// For `suspend`: how long, 1 to 8760 hours (default 168: seven days).
    public var durationHours: Int?

    public init(
        targetType: ReportTargetType, targetId: String, action: ModerationActionKind, reason: String,
        durationHours: Int? = nil
    ) {
        self.targetType = targetType
        self.targetId = targetId
        self.action = action
        self.reason = reason
        self.durationHours = durationHours
    }
}

/// `PUT /v1/moderation/reports/{id}` (StreakSnap's per-report action): the action, taken on
/// the object the report names.
public struct ReportAction: Codable, Sendable {
    public var action: ModerationActionKind
    public var reason: String
    public var durationHours: Int?

    public init(action: ModerationActionKind, reason: String, durationHours: Int? = nil) {
        self.action = action
        self.reason = reason
        self.durationHours = durationHours
    }
}

/// An action a moderator took, as moderators and the user it touches see it.
public struct ModerationAction: Codable, Sendable, Equatable {
    public var id: String
    public var targetType: ReportTargetType
    public var targetId: String
    /// The user whose object (or account) it was.
    public var userId: String
    public var moderatorId: String
    public var action: ModerationActionKind
    public var reason: String
    /// When a suspension ends.
    public var endsAt: Date?
    public var createdAt: Date
    /// When an appeal or a later dismissal undid it.
    public var reversedAt: Date?
    /// The user's appeal, once made.
    public var appeal: Appeal?

    enum CodingKeys: String, CodingKey {
        case id, targetType, targetId, userId, moderatorId, action, reason, endsAt, createdAt, reversedAt, appeal
    }

    public init(
        id: String, targetType: ReportTargetType, targetId: String, userId: String, moderatorId: String,
        action: ModerationActionKind, reason: String, endsAt: Date?, createdAt: Date, reversedAt: Date?,
        appeal: Appeal?
    ) {
        self.id = id
        self.targetType = targetType
        self.targetId = targetId
        self.userId = userId
        self.moderatorId = moderatorId
        self.action = action
        self.reason = reason
        self.endsAt = endsAt
        self.createdAt = createdAt
        self.reversedAt = reversedAt
        self.appeal = appeal
    }
}

/// One report in the moderators' queue.
public struct QueuedReport: Codable, Sendable, Equatable {
    public var id: String
    public var reporterId: String
    public var reason: ReportReason
    public var details: String?
    /// How much the reporter's report counts towards hiding (their trust).
    public var weight: Double
    public var status: ReportStatus
    public var createdAt: Date
    /// Who reported it, as a view.
    public var reporter: PersonView?
    /// What was reported and whose it is, and that person as a view: set on the flat list of
    /// pending reports (`GET /v1/moderation/reports`), whose rows stand alone; a queue item
    /// says these once for all its reports.
    public var targetType: ReportTargetType?
    public var targetId: String?
    public var targetOwnerId: String?
    public var targetOwner: PersonView?

    public init(
        id: String, reporterId: String, reason: ReportReason, details: String?, weight: Double, status: ReportStatus,
        createdAt: Date
    ) {
        self.id = id
        self.reporterId = reporterId
        self.reason = reason
        self.details = details
        self.weight = weight
        self.status = status
        self.createdAt = createdAt
    }
}

/// `GET /v1/moderation/queue` (open reports only) and `GET /v1/moderation/objects/{type}/{id}`
/// (every report): a reported object, its reports and its owner's history.
public struct QueueItem: Codable, Sendable, Equatable {
    public var targetType: ReportTargetType
    public var targetId: String
    public var ownerId: String
    /// The object as it is now; absent when it no longer exists.
    public var subject: ModerationSubject?
    /// Whether reports hid it (until a moderator dismisses them).
    public var hidden: Bool
    /// The open reports' weights, summed; reaching `moderation.autoHideReports` hides it.
    public var weight: Double
    /// Its first report; absent when a moderator acted on it unreported.
    public var firstReportedAt: Date?
    /// Its reports, oldest first.
    public var reports: [QueuedReport]
    /// Earlier actions against its owner, newest first.
    public var priorActions: [ModerationAction]
    /// The owner, as a view.
    public var owner: PersonView?

    enum CodingKeys: String, CodingKey {
        case targetType, targetId, ownerId, subject, hidden, weight, firstReportedAt, reports, priorActions, owner
    }

    public init(
        targetType: ReportTargetType, targetId: String, ownerId: String, subject: ModerationSubject?, hidden: Bool,
        weight: Double, firstReportedAt: Date?, reports: [QueuedReport], priorActions: [ModerationAction]
    ) {
        self.targetType = targetType
        self.targetId = targetId
        self.ownerId = ownerId
        self.subject = subject
        self.hidden = hidden
        self.weight = weight
        self.firstReportedAt = firstReportedAt
        self.reports = reports
        self.priorActions = priorActions
    }
}

/// Where an appeal stands.
public enum AppealStatus: String, Codable, Sendable, CaseIterable {
    case pending
    /// The action stands.
    case upheld
    /// The action was undone.
    case reversed
}

/// `POST /v1/moderation/actions/{id}/appeal`: once per action, by the user it touched.
public struct AppealCreate: Codable, Sendable {
    /// 1 to 1000 characters.
    public var statement: String

    public init(statement: String) {
        self.statement = statement
    }
}

/// `POST /v1/auth/ban-appeal`: a banned user, who cannot sign in, appeals the ban by proving
/// the account is theirs with its email and password.
public struct BanAppealRequest: Codable, Sendable {
    public var email: String
    public var password: String
    /// 1 to 1000 characters.
    public var statement: String

    public init(email: String, password: String, statement: String) {
        self.email = email
        self.password = password
        self.statement = statement
    }
}

/// `POST /internal/ban-appeals` (auth to moderation): `userId`, whose password auth checked,
/// appeals the ban `actionId`.
public struct BanAppeal: Codable, Sendable, Equatable {
    public var userId: String
    public var actionId: String
    public var statement: String

    public init(userId: String, actionId: String, statement: String) {
        self.userId = userId
        self.actionId = actionId
        self.statement = statement
    }
}

/// An appeal against an action.
public struct Appeal: Codable, Sendable, Equatable {
    public var id: String
    public var actionId: String
    public var userId: String
    public var statement: String
    public var status: AppealStatus
    /// The moderator who decided it (never the one who acted).
    public var decidedBy: String?
    public var decisionReason: String?
    public var createdAt: Date
    public var decidedAt: Date?

    enum CodingKeys: String, CodingKey {
        case id, actionId, userId, statement, status, decidedBy, decisionReason, createdAt, decidedAt
    }

    public init(
        id: String, actionId: String, userId: String, statement: String, status: AppealStatus, decidedBy: String?,
        decisionReason: String?, createdAt: Date, decidedAt: Date?
    ) {
        self.id = id
        self.actionId = actionId
        self.userId = userId
        self.statement = statement
        self.status = status
        self.decidedBy = decidedBy
        self.decisionReason = decisionReason
        self.createdAt = createdAt
        self.decidedAt = decidedAt
    }
}

/// How a moderator decides an appeal.
public enum AppealOutcome: String, Codable, Sendable, CaseIterable {
    /// The action stands.
    case uphold
    /// The action's effects are undone.
    case reverse
}

/// `POST /v1/moderation/appeals/{id}/decision` (a moderator other than the one who acted).
public struct AppealDecision: Codable, Sendable {
    public var outcome: AppealOutcome
    /// 1 to 500 characters; the user is told it.
    public var reason: String

    public init(outcome: AppealOutcome, reason: String) {
        self.outcome = outcome
        self.reason = reason
    }
}

/// One line of the append-only audit log (`GET /v1/moderation/audit`).
public struct AuditEntry: Codable, Sendable, Equatable {
    /// Grows with every entry.
    public var id: Int64
    /// The moderator, or `system` for what rules and schedules did.
    public var actorId: String
    /// What happened: `content.hidden`, `action.<kind>`, `appeal.made`, `appeal.upheld`,
    /// `appeal.reversed`, `suspension.ended`.
    public var event: String
    public var targetType: ReportTargetType?
    public var targetId: String?
    /// The user it concerns.
    public var userId: String?
    public var actionId: String?
    public var reason: String?
    public var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case id, actorId, event, targetType, targetId, userId, actionId, reason, createdAt
    }

    public init(
        id: Int64, actorId: String, event: String, targetType: ReportTargetType?, targetId: String?, userId: String?,
        actionId: String?, reason: String?, createdAt: Date
    ) {
        self.id = id
        self.actorId = actorId
        self.event = event
        self.targetType = targetType
        self.targetId = targetId
        self.userId = userId
        self.actionId = actionId
        self.reason = reason
        self.createdAt = createdAt
    }
}

// MARK: - Events

/// `content.restored`: a moderator dismissed the reports that hid it, or reversed its removal
/// on appeal; its owner shows it again.
public struct ContentRestored: DomainEvent, Equatable {
    public static let eventType: EventType = "content.restored"
    public var targetType: ReportTargetType
    public var targetId: String

    public init(targetType: ReportTargetType, targetId: String) {
        self.targetType = targetType
        self.targetId = targetId
    }
}

/// `content.removed`: a moderator removed it; its owning service stops showing it to anyone
/// but keeps it, so an appeal can restore it; alerts tells its author why.
public struct ContentRemoved: DomainEvent, Equatable {
    public static let eventType: EventType = "content.removed"
    public var targetType: ReportTargetType
    public var targetId: String
    public var ownerId: String
    public var actionId: String
    public var reason: String

    public init(targetType: ReportTargetType, targetId: String, ownerId: String, actionId: String, reason: String) {
        self.targetType = targetType
        self.targetId = targetId
        self.ownerId = ownerId
        self.actionId = actionId
        self.reason = reason
    }
}

/// A moderator's action on an account, and why: `user.warned` (``UserWarned``: alerts tells the
/// user why) and `user.banned` (``UserBanned``: auth ends every session of the user and refuses
/// their sign-ins). `Kind` names which.
public struct AccountSanction<Kind: EventName>: DomainEvent, Equatable {
    public static var eventType: EventType { Kind.eventType }
    public var userId: String
    public var actionId: String
    public var reason: String

    public init(userId: String, actionId: String, reason: String) {
        self.userId = userId
        self.actionId = actionId
        self.reason = reason
    }
}

/// The name of a warning's event.
public enum Warned: EventName {
    public static let eventType: EventType = "user.warned"
}

/// The name of a ban's event.
public enum Banned: EventName {
    public static let eventType: EventType = "user.banned"
}

/// `user.warned`: alerts tells the user why.
public typealias UserWarned = AccountSanction<Warned>

/// `user.banned`: auth ends every session of the user and refuses their sign-ins.
public typealias UserBanned = AccountSanction<Banned>

/// `user.suspended`: auth limits the user's sessions to reading until `until`; alerts tells
/// them why and until when.
public struct UserSuspended: DomainEvent, Equatable {
    public static let eventType: EventType = "user.suspended"
    public var userId: String
    public var actionId: String
    public var until: Date
    public var reason: String

    public init(userId: String, actionId: String, until: Date, reason: String) {
        self.userId = userId
        self.actionId = actionId
        self.until = until
        self.reason = reason
    }
}

/// `user.reinstated`: a suspension ended (its time ran out, or an appeal reversed it) or a
/// ban was reversed; auth lifts the restriction the action set.
public struct UserReinstated: DomainEvent, Equatable {
    public static let eventType: EventType = "user.reinstated"
    public var userId: String
    /// The action whose restriction ends.
    public var actionId: String

    public init(userId: String, actionId: String) {
        self.userId = userId
        self.actionId = actionId
    }
}

/// `appeal.decided`: alerts tells the user the outcome.
public struct AppealDecided: DomainEvent, Equatable {
    public static let eventType: EventType = "appeal.decided"
    public var userId: String
    public var appealId: String
    public var actionId: String
    public var outcome: AppealOutcome
    public var reason: String

    public init(userId: String, appealId: String, actionId: String, outcome: AppealOutcome, reason: String) {
        self.userId = userId
        self.appealId = appealId
        self.actionId = actionId
        self.outcome = outcome
        self.reason = reason
    }
}
