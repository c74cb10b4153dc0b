import GRDB
import ServiceHTTP
import ServiceStore

extension AlertsStore {
    /// Append-only; never edit a migration that has shipped.
    static func registerMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("alerts.v1.notifications") { db in
            try db.create(table: "notification") { table in
                table.column("id", .text).primaryKey()
                table.column("user_id", .text).notNull()
                table.column("type", .text).notNull()
                table.column("title", .text).notNull()
                table.column("body", .text).notNull()
                table.column("data", .text).notNull()
                table.column("source_event_id", .text).notNull().unique()
                table.column("created_at", .datetime).notNull()
                table.column("read_at", .datetime)
            }
            try db.create(index: "notification_by_user", on: "notification", columns: ["user_id", "created_at", "id"])
            try db.create(
                index: "notification_unread", on: "notification", columns: ["user_id"],
                condition: Column("read_at") == nil)
        }

        migrator.registerMigration("alerts.v2.duress-alerts") { db in
            // One row per duress sign-in (event), grouped by incident; delivery to colleagues
            // and acknowledgements build on it.
            try db.create(table: "duress_alert") { table in
                table.column("id", .text).primaryKey()
                table.column("incident_id", .text).notNull()
                table.column("tenant_id", .text).notNull()
                table.column("customer_ref", .text).notNull()
                table.column("user_id", .text).notNull()
                table.column("latitude", .double)
                table.column("longitude", .double)
                table.column("device_platform", .text)
                table.column("raised_at", .datetime).notNull()
            }
            try db.create(index: "duress_alert_by_tenant", on: "duress_alert", columns: ["tenant_id", "raised_at"])
        }

        migrator.registerMigration("alerts.v3.devices") { db in
            try db.create(table: "device") { table in
                table.column("id", .text).primaryKey()
                table.column("user_id", .text).notNull()
                table.column("session_id", .text).notNull()
                table.column("provider", .text).notNull()
                table.column("token", .text).notNull()
                table.column("bundle_id", .text)
                table.column("environment", .text)
                table.column("platform", .text)
                table.column("device_id", .text)
                table.column("created_at", .datetime).notNull()
                table.column("last_refreshed_at", .datetime).notNull()
                table.uniqueKey(["provider", "token"])
            }
            try db.create(index: "device_by_user", on: "device", columns: ["user_id", "session_id"])
        }

        migrator.registerMigration("alerts.v4.links-and-preferences") { db in
            try db.alter(table: "notification") { table in
                table.add(column: "link", .text)
                table.add(column: "actor_id", .text)
            }
            // Only the choices a user made; the catalog's defaults fill the rest.
            try db.create(table: "notification_preference") { table in
                table.column("user_id", .text).notNull()
                table.column("type", .text).notNull()
                table.column("push", .boolean).notNull()
                table.column("updated_at", .datetime).notNull()
                table.primaryKey(["user_id", "type"])
            }
        }

        migrator.registerMigration("alerts.v5.push-deliveries") { db in
            try db.create(table: "push_delivery") { table in
                table.column("notification_id", .text).notNull()
                    .references("notification", column: "id", onDelete: .cascade)
                table.column("device_id", .text).notNull().references("device", column: "id", onDelete: .cascade)
                table.column("provider", .text).notNull()
                table.column("status", .text).notNull()
                table.column("provider_id", .text)
                table.column("detail", .text)
                table.column("at", .datetime).notNull()
                table.primaryKey(["notification_id", "device_id"])
            }
            try db.create(index: "push_delivery_by_device", on: "push_delivery", columns: ["device_id"])
        }
        BlockMirror.registerMigration(&migrator)

        migrator.registerMigration("alerts.v6.quiet-hours") { db in
            try db.create(table: "quiet_hours") { table in
                table.column("user_id", .text).primaryKey()
                table.column("start_minute", .integer).notNull()
                table.column("end_minute", .integer).notNull()
                table.column("time_zone", .text).notNull()
                table.column("mode", .text).notNull()
                table.column("updated_at", .datetime).notNull()
            }
        }

        migrator.registerMigration("alerts.v7.streak-milestone-type") { db in
            // The milestone type is named `streak_milestone` now; a choice made under the old name is kept.
            try db.execute(sql: "UPDATE notification_preference SET type = 'streak_milestone' WHERE type = 'milestone'")
            try db.execute(sql: "UPDATE notification SET type = 'streak_milestone' WHERE type = 'milestone'")
        }

        migrator.registerMigration("alerts.v8.duress-responders") { db in
            try db.alter(table: "duress_alert") { table in
                table.add(column: "session_id", .text)
                table.add(column: "resolved_at", .datetime)
            }
            try db.create(index: "duress_alert_by_session", on: "duress_alert", columns: ["session_id"], unique: true)
            try db.create(table: "duress_session") { table in
                table.column("session_id", .text).primaryKey()
                table.column("alert_id", .text).notNull()
                table.column("user_id", .text).notNull()
                table.column("latitude", .double)
                table.column("longitude", .double)
                table.column("device_platform", .text)
                table.column("created_at", .datetime).notNull()
            }
            try db.create(index: "duress_session_by_user", on: "duress_session", columns: ["user_id"])
            try db.create(table: "responder_position") { table in
                table.column("user_id", .text).primaryKey()
                table.column("tenant_id", .text).notNull()
                table.column("latitude", .double).notNull()
                table.column("longitude", .double).notNull()
                table.column("at", .datetime).notNull()
            }
            try db.create(
                index: "responder_position_by_tenant", on: "responder_position", columns: ["tenant_id", "latitude"])
            try db.create(index: "responder_position_by_time", on: "responder_position", columns: ["at"])
            try db.create(table: "duress_ack") { table in
                table.column("alert_id", .text).notNull().references("duress_alert", onDelete: .cascade)
                table.column("user_id", .text).notNull()
                table.column("customer_ref", .text).notNull()
                table.column("method", .text).notNull()
                table.column("at", .datetime).notNull()
                table.primaryKey(["alert_id", "user_id"])
            }
            try db.create(index: "duress_ack_by_user", on: "duress_ack", columns: ["user_id"])
        }

        migrator.registerMigration("alerts.v9.duress-notification-index") { db in
            // Acknowledgements and clearances find who was told of an alert by this, not by
            // reading every notification.
            try db.execute(
                sql: """
                    CREATE INDEX notification_by_duress_alert ON notification (json_extract(data, '$.alertId'))
                    WHERE type = 'duress_alert'
                    """)
        }

        // A copy of moderation's mutes of people: nothing a muted user does notifies the muter.
        MuteMirror.registerMigration(&migrator)

        // Direct messages: one conversation per pair, each person's side of it, the
        // messages in order, and those one person does not see.
        migrator.registerMigration("alerts.v10.messages") { db in
            try db.create(table: "conversation") { table in
                table.column("id", .text).primaryKey()
                table.column("first_user_id", .text).notNull()
                table.column("second_user_id", .text).notNull()
                table.column("started_by", .text).notNull()
                table.column("created_at", .datetime).notNull()
                table.uniqueKey(["first_user_id", "second_user_id"])
            }
            try db.create(index: "conversation_by_second_user", on: "conversation", columns: ["second_user_id"])
            try db.create(index: "conversation_by_starter", on: "conversation", columns: ["started_by", "created_at"])
            try db.create(table: "conversation_member") { table in
                table.column("conversation_id", .text).notNull()
                    .references("conversation", onDelete: .cascade)
                table.column("user_id", .text).notNull()
                table.column("other_user_id", .text).notNull()
                table.column("folder", .text).notNull()
                table.column("hidden", .boolean).notNull()
                table.column("read_seq", .integer).notNull()
                table.column("cleared_seq", .integer).notNull()
                table.column("updated_at", .datetime).notNull()
                table.primaryKey(["conversation_id", "user_id"])
            }
            try db.create(
                index: "conversation_member_by_user", on: "conversation_member",
                columns: ["user_id", "folder", "updated_at", "conversation_id"])
            try db.create(table: "message") { table in
                table.autoIncrementedPrimaryKey("seq")
                table.column("id", .text).notNull().unique()
                table.column("conversation_id", .text).notNull().references("conversation", onDelete: .cascade)
                table.column("sender_id", .text).notNull()
                table.column("text", .text)
                table.column("media_id", .text)
                table.column("created_at", .datetime).notNull()
            }
            try db.create(index: "message_by_conversation", on: "message", columns: ["conversation_id", "seq"])
            try db.create(index: "message_by_sender", on: "message", columns: ["sender_id"])
            try db.create(table: "hidden_message", options: .withoutRowID) { table in
                table.column("message_id", .text).notNull().references("message", column: "id", onDelete: .cascade)
                table.column("user_id", .text).notNull()
                table.column("reason", .text).notNull()
                table.primaryKey(["message_id", "user_id"])
            }
            try db.create(index: "hidden_message_by_user", on: "hidden_message", columns: ["user_id"])
        }
        // A copy of moderation's keyword mutes: a message with words its recipient muted stays
        // out of their view.
        KeywordMuteMirror.registerMigration(&migrator)

        // The copies of what lists show of people and media (views).
        ProfileMirror.registerMigration(&migrator)
        MediaMirror.registerMigration(&migrator)

        migrator.registerMigration("alerts.v11.duress-incidents") { db in
            // One alert per incident, however many sessions sign in under it: each session
            // names the alert it belongs to, and a new sign-in finds its incident's alert.
            try db.alter(table: "duress_session") { table in table.add(column: "incident_alert_id", .text) }
            try db.execute(
                sql: """
                    UPDATE duress_session SET incident_alert_id =
                        (SELECT id FROM duress_alert WHERE duress_alert.session_id = duress_session.session_id)
                    """)
            try db.create(index: "duress_session_by_alert", on: "duress_session", columns: ["alert_id"])
            try db.create(index: "duress_alert_by_incident", on: "duress_alert", columns: ["incident_id"])
        }
    }
}
