import GRDB
import ServiceHTTP
import ServiceStore

extension FeedStore {
    /// Append-only; never edit a migration that has shipped.
    static func registerMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("feed.v1.posts-votes-blocks") { db in
            try db.create(table: "post") { table in
                table.column("id", .text).primaryKey()
                table.column("author_id", .text).notNull().indexed()
                // A photo is posted once: a retried create finds the first post.
                table.column("media_id", .text).notNull().unique()
                table.column("caption", .text)
                table.column("latitude", .double).notNull()
                table.column("longitude", .double).notNull()
                table.column("upvotes", .integer).notNull().defaults(to: 0)
                table.column("downvotes", .integer).notNull().defaults(to: 0)
                table.column("hidden_at", .datetime)
                table.column("created_at", .datetime).notNull()
                // `created_at` in whole milliseconds: integers sort several times faster than
                // date text when a nearby query orders thousands of candidates.
                table.column("created_ms", .integer).notNull()
            }
            // Nearby queries read candidates from this index alone: a latitude range, the
            // longitude check, and the newest-first order.
            try db.create(index: "post_by_place", on: "post", columns: ["latitude", "longitude", "created_ms", "id"])
            try db.create(table: "vote") { table in
                table.column("post_id", .text).notNull().references("post", onDelete: .cascade)
                table.column("user_id", .text).notNull()
                table.column("value", .integer).notNull()
                table.column("updated_at", .datetime).notNull()
                table.primaryKey(["post_id", "user_id"])
            }
            // A local copy of moderation's blocks, fed by `user.blocked` and `user.unblocked`,
            // so that a feed query never calls out.
            try db.create(table: "block") { table in
                table.column("blocker_id", .text).notNull()
                table.column("blocked_id", .text).notNull()
                table.primaryKey(["blocker_id", "blocked_id"])
            }
            try db.create(index: "block_by_blocked", on: "block", columns: ["blocked_id", "blocker_id"])
        }

        migrator.registerMigration("feed.v2.media-state") { db in
            try db.alter(table: "post") { table in
                table.add(column: "media_state", .text).notNull().defaults(to: "ready")
            }
        }

        // Blocks move to the kit's one copy (`kit_block`, the same in every service that keeps one).
        BlockMirror.registerMigration(
            &migrator, movingRowsFrom: (table: "block", migration: "feed.v3.blocks-to-kit-mirror"))

        // Challenges: one row each, a clip per participant, a vote per voter,
        // each user's standing.
        migrator.registerMigration("feed.v4.challenges") { db in
            try db.create(table: "challenge") { table in
                table.column("id", .text).primaryKey()
                table.column("creator_id", .text).notNull()
                table.column("opponent_id", .text).notNull()
                table.column("creator_name", .text).notNull()
                table.column("opponent_name", .text).notNull()
                table.column("status", .text).notNull()
                table.column("max_duration", .integer).notNull()
                table.column("trick", .text)
                table.column("spot_id", .text)
                table.column("latitude", .double)
                table.column("longitude", .double)
                table.column("deadline", .datetime).notNull()
                table.column("voting_deadline", .datetime)
                // When voting opened, in milliseconds: the order of lists open for voting.
                table.column("voting_ms", .integer)
                table.column("winner_id", .text)
                table.column("creator_votes", .integer)
                table.column("opponent_votes", .integer)
                table.column("created_at", .datetime).notNull()
                table.column("updated_at", .datetime).notNull()
            }
            try db.create(index: "challenge_by_creator", on: "challenge", columns: ["creator_id", "created_at", "id"])
            try db.create(
                index: "challenge_by_opponent", on: "challenge", columns: ["opponent_id", "created_at", "id"])
            // Open for voting near a point (read from the index alone, as posts are) or at a spot.
            try db.execute(
                sql: """
                    CREATE INDEX challenge_voting_by_place ON challenge(latitude, longitude, voting_ms, id)
                    WHERE status = 'voting' AND latitude IS NOT NULL
                    """)
            try db.execute(
                sql: """
                    CREATE INDEX challenge_voting_by_spot ON challenge(spot_id, voting_ms, id)
                    WHERE status = 'voting' AND spot_id IS NOT NULL
                    """)
            try db.create(table: "challenge_clip") { table in
                table.column("challenge_id", .text).notNull().references("challenge", onDelete: .cascade)
                table.column("user_id", .text).notNull()
                table.column("media_id", .text).notNull().indexed()
                table.column("state", .text).notNull()
                table.column("duration_ms", .integer)
                table.column("uploaded_at", .datetime).notNull()
                table.column("rejection_reason", .text)
                table.primaryKey(["challenge_id", "user_id"])
            }
            try db.create(table: "challenge_vote") { table in
                table.column("challenge_id", .text).notNull().references("challenge", onDelete: .cascade)
                table.column("voter_id", .text).notNull().indexed()
                table.column("voted_for", .text).notNull()
                table.column("updated_at", .datetime).notNull()
                table.primaryKey(["challenge_id", "voter_id"])
            }
            try db.create(table: "challenge_stats") { table in
                table.column("user_id", .text).primaryKey()
                table.column("points", .integer).notNull()
                table.column("wins", .integer).notNull()
                table.column("losses", .integer).notNull()
                table.column("draws", .integer).notNull()
                table.column("streak", .integer).notNull()
                table.column("best_streak", .integer).notNull()
                table.column("updated_at", .datetime).notNull()
            }
        }

        // Spots: each with its tags, photos, check-ins and one rating per user.
        migrator.registerMigration("feed.v5.spots") { db in
            try db.create(table: "spot") { table in
                table.column("id", .text).primaryKey()
                table.column("creator_id", .text).notNull().indexed()
                table.column("name", .text).notNull()
                table.column("description", .text).notNull()
                table.column("latitude", .double).notNull()
                table.column("longitude", .double).notNull()
                table.column("address", .text)
                table.column("difficulty", .text).notNull()
                table.column("check_in_count", .integer).notNull().defaults(to: 0)
                table.column("challenge_count", .integer).notNull().defaults(to: 0)
                table.column("rating_sum", .integer).notNull().defaults(to: 0)
                table.column("rating_count", .integer).notNull().defaults(to: 0)
                table.column("created_at", .datetime).notNull()
                table.column("created_ms", .integer).notNull()
                table.column("updated_at", .datetime).notNull()
            }
            // Near a point, read from the index alone (as posts are).
            try db.create(index: "spot_by_place", on: "spot", columns: ["latitude", "longitude", "created_ms", "id"])
            try db.create(index: "spot_by_time", on: "spot", columns: ["created_at", "id"])
            try db.create(table: "spot_tag") { table in
                table.column("spot_id", .text).notNull().references("spot", onDelete: .cascade)
                table.column("tag", .text).notNull()
                table.column("created_at", .datetime).notNull()
                table.primaryKey(["tag", "created_at", "spot_id"])
            }
            try db.create(index: "spot_tag_by_spot", on: "spot_tag", columns: ["spot_id"])
            try db.create(table: "spot_image") { table in
                table.column("spot_id", .text).notNull().references("spot", onDelete: .cascade)
                table.column("position", .integer).notNull()
                table.column("media_id", .text).notNull()
                table.primaryKey(["spot_id", "position"])
            }
            try db.create(table: "spot_check_in") { table in
                table.column("id", .text).primaryKey()
                table.column("spot_id", .text).notNull().references("spot", onDelete: .cascade)
                table.column("user_id", .text).notNull()
                table.column("local_day", .text).notNull()
                table.column("distance_m", .double).notNull()
                table.column("created_at", .datetime).notNull()
                // One a day per user and spot: a second is answered with the first.
                table.uniqueKey(["spot_id", "user_id", "local_day"])
            }
            try db.create(index: "spot_check_in_by_user", on: "spot_check_in", columns: ["user_id", "spot_id"])
            try db.create(table: "spot_rating") { table in
                table.column("spot_id", .text).notNull().references("spot", onDelete: .cascade)
                table.column("user_id", .text).notNull().indexed()
                table.column("stars", .integer).notNull()
                table.column("updated_at", .datetime).notNull()
                table.primaryKey(["spot_id", "user_id"])
            }
        }
        migrator.registerMigration("feed.v6.follows") { db in
            try db.create(table: "follow", options: .withoutRowID) { table in
                table.column("follower_id", .text).notNull()
                table.column("followee_id", .text).notNull()
                table.column("created_at", .datetime).notNull()
                table.primaryKey(["follower_id", "followee_id"])
            }
            // Both lists read newest first from an index alone.
            try db.create(
                index: "follow_by_follower", on: "follow", columns: ["follower_id", "created_at", "followee_id"])
            try db.create(
                index: "follow_by_followee", on: "follow", columns: ["followee_id", "created_at", "follower_id"])
            // Counts kept in the transaction of each change; `revision` orders the copies
            // `profile.counts_changed` leaves at auth.
            try db.create(table: "profile_count") { table in
                table.column("user_id", .text).primaryKey()
                table.column("followers", .integer).notNull().defaults(to: 0)
                table.column("following", .integer).notNull().defaults(to: 0)
                table.column("posts", .integer).notNull().defaults(to: 0)
                table.column("revision", .integer).notNull().defaults(to: 0)
            }
            try db.execute(
                sql: """
                    INSERT INTO profile_count (user_id, posts)
                    SELECT author_id, COUNT(*) FROM post WHERE hidden_at IS NULL GROUP BY author_id
                    """)
        }
        // Posts of words: text with an optional link, media and place; replies, quotes, likes and
        // reposts. `post` is rebuilt (SQLite cannot drop NOT NULL) keeping every row; a post
        // needs a photo and a place only to be listed nearby (as before).
        migrator.registerMigration("feed.v7.social-posts") { db in
            try db.create(table: "post_new") { table in
                table.column("id", .text).primaryKey()
                table.column("author_id", .text).notNull()
                // A photo is posted once: a retried create finds the first post.
                table.column("media_id", .text).unique()
                table.column("caption", .text)
                table.column("latitude", .double)
                table.column("longitude", .double)
                table.column("upvotes", .integer).notNull().defaults(to: 0)
                table.column("downvotes", .integer).notNull().defaults(to: 0)
                table.column("hidden_at", .datetime)
                table.column("created_at", .datetime).notNull()
                table.column("created_ms", .integer).notNull()
                table.column("media_state", .text).notNull().defaults(to: "ready")
                table.column("link_url", .text)
                table.column("parent_id", .text)
                table.column("root_id", .text)
                table.column("quote_of", .text)
                table.column("like_count", .integer).notNull().defaults(to: 0)
                table.column("reply_count", .integer).notNull().defaults(to: 0)
                table.column("repost_count", .integer).notNull().defaults(to: 0)
                table.column("deleted_at", .datetime)
            }
            let kept =
                "id, author_id, media_id, caption, latitude, longitude, upvotes, downvotes, hidden_at, "
                + "created_at, created_ms, media_state"
            try db.execute(sql: "INSERT INTO post_new (\(kept)) SELECT \(kept) FROM post")
            try db.drop(table: "post")
            try db.rename(table: "post_new", to: "post")
            // Nearby reads photos at a place, not replies, from this index alone.
            try db.execute(
                sql: """
                    CREATE INDEX post_by_place ON post (latitude, longitude, created_ms, id)
                    WHERE latitude IS NOT NULL AND media_id IS NOT NULL AND parent_id IS NULL
                    """)
            try db.create(index: "post_by_author", on: "post", columns: ["author_id", "created_ms", "id"])
            try db.execute(
                sql: """
                    CREATE INDEX post_by_parent ON post (parent_id, created_at, id) WHERE parent_id IS NOT NULL
                    """)
            // A post's further photos and videos (the first is `post.media_id`).
            try db.create(table: "post_media") { table in
                table.column("post_id", .text).notNull().references("post", onDelete: .cascade)
                table.column("position", .integer).notNull()
                table.column("media_id", .text).notNull()
                table.primaryKey(["post_id", "position"])
            }
            try db.create(table: "post_like", options: .withoutRowID) { table in
                table.column("post_id", .text).notNull().references("post", onDelete: .cascade)
                table.column("user_id", .text).notNull()
                table.column("created_at", .datetime).notNull()
                table.primaryKey(["post_id", "user_id"])
            }
            try db.create(index: "post_like_by_user", on: "post_like", columns: ["user_id"])
            // Plain reposts (a quote is a post with `quote_of`).
            try db.create(table: "repost", options: .withoutRowID) { table in
                table.column("post_id", .text).notNull().references("post", onDelete: .cascade)
                table.column("user_id", .text).notNull()
                table.column("created_at", .datetime).notNull()
                table.column("created_ms", .integer).notNull()
                table.primaryKey(["post_id", "user_id"])
            }
            try db.create(index: "repost_by_user", on: "repost", columns: ["user_id", "created_ms"])
            // The following feed, written ahead (fan-out on write): one row per reader and post
            // (or repost), `source_id` the followed user who brought it (author or reposter).
            try db.create(table: "timeline", options: .withoutRowID) { table in
                table.column("user_id", .text).notNull()
                table.column("at_ms", .integer).notNull()
                table.column("post_id", .text).notNull()
                table.column("source_id", .text).notNull()
                table.column("repost", .boolean).notNull()
                table.primaryKey(["user_id", "at_ms", "post_id", "source_id"])
            }
            try db.create(index: "timeline_by_source", on: "timeline", columns: ["user_id", "source_id"])
            // A post leaves every timeline at once; a reader sees it once, at its newest row.
            try db.create(index: "timeline_by_post", on: "timeline", columns: ["post_id", "user_id", "at_ms"])
        }
        // Moderation's keyword mutes, one row per user (`keyword_mutes.changed`).
        migrator.registerMigration("feed.v8.muted-words") { db in
            try db.create(table: "muted_words") { table in
                table.column("user_id", .text).primaryKey()
                table.column("revision", .integer).notNull()
                table.column("mutes", .jsonText).notNull()
            }
        }
        // For You: what readers tell of what they saw, their affinity for authors, and recent
        // top-level posts by time (the popular candidates).
        migrator.registerMigration("feed.v9.for-you") { db in
            try db.create(table: "feed_signal", options: .withoutRowID) { table in
                table.column("user_id", .text).notNull()
                // The app's id for the signal: the same one sent again is applied once.
                table.column("id", .text).notNull()
                table.column("post_id", .text).notNull()
                table.column("kind", .text).notNull()
                table.column("dwell_ms", .integer)
                table.column("at", .datetime).notNull()
                table.primaryKey(["user_id", "id"])
            }
            try db.create(index: "feed_signal_by_post", on: "feed_signal", columns: ["user_id", "post_id", "at"])
            try db.create(table: "affinity", options: .withoutRowID) { table in
                table.column("user_id", .text).notNull()
                table.column("author_id", .text).notNull()
                table.column("score", .double).notNull()
                table.primaryKey(["user_id", "author_id"])
            }
            try db.execute(
                sql: """
                    CREATE INDEX post_by_time ON post (created_ms) WHERE parent_id IS NULL AND deleted_at IS NULL
                    """)
        }
        // Search posts by their words (SQLite FTS5 over `post.caption`, kept by triggers; folded
        // for case and accents, as keyword mutes are).
        migrator.registerMigration("feed.v10.post-search") { db in
            try db.execute(
                sql: """
                    CREATE VIRTUAL TABLE post_fts USING fts5(
                        caption, content = 'post', content_rowid = 'rowid',
                        tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
                    CREATE TRIGGER post_fts_insert AFTER INSERT ON post BEGIN
                        INSERT INTO post_fts (rowid, caption) VALUES (new.rowid, new.caption);
                    END;
                    CREATE TRIGGER post_fts_delete AFTER DELETE ON post BEGIN
                        INSERT INTO post_fts (post_fts, rowid, caption) VALUES ('delete', old.rowid, old.caption);
                    END;
                    CREATE TRIGGER post_fts_update AFTER UPDATE OF caption ON post BEGIN
                        INSERT INTO post_fts (post_fts, rowid, caption) VALUES ('delete', old.rowid, old.caption);
                        INSERT INTO post_fts (rowid, caption) VALUES (new.rowid, new.caption);
                    END;
                    INSERT INTO post_fts (post_fts) VALUES ('rebuild');
                    """)
        }
        // A copy of moderation's mutes of people: their posts leave the muter's feeds and search.
        MuteMirror.registerMigration(&migrator)
        // The housekeeper finds old signals by time; erasing a user finds affinities for them.
        migrator.registerMigration("feed.v11.housekeeping") { db in
            try db.create(index: "feed_signal_by_time", on: "feed_signal", columns: ["at"])
            try db.create(index: "affinity_by_author", on: "affinity", columns: ["author_id"])
        }
        // The map's cluster index is rebuilt when this number moves: every change to a post
        // that can put it on the map, move it or take it off, counted in the same transaction.
        migrator.registerMigration("feed.v12.map-version") { db in
            try db.create(table: "map_version") { table in
                table.column("id", .integer).primaryKey().check { $0 == 1 }
                table.column("version", .integer).notNull()
            }
            try db.execute(
                sql: """
                    INSERT INTO map_version (id, version) VALUES (1, 0);
                    CREATE TRIGGER post_map_insert AFTER INSERT ON post WHEN NEW.latitude IS NOT NULL
                    BEGIN UPDATE map_version SET version = version + 1 WHERE id = 1; END;
                    CREATE TRIGGER post_map_update
                    AFTER UPDATE OF hidden_at, deleted_at, media_state, media_id, latitude, longitude, parent_id ON post
                    BEGIN UPDATE map_version SET version = version + 1 WHERE id = 1; END;
                    CREATE TRIGGER post_map_delete AFTER DELETE ON post WHEN OLD.latitude IS NOT NULL
                    BEGIN UPDATE map_version SET version = version + 1 WHERE id = 1; END;
                    """)
        }
        // Moderation hides spots and challenge clips as it hides posts: from everyone but their
        // owner, until a moderator restores them.
        migrator.registerMigration("feed.v13.moderated-spots-and-clips") { db in
            try db.alter(table: "spot") { $0.add(column: "hidden_at", .datetime) }
            try db.alter(table: "challenge_clip") { $0.add(column: "hidden_at", .datetime) }
        }
        // Nearby merges the newest-first ranges of the few cells around a point (``PlaceCells``:
        // 0.01° cells for a kilometre or so, 0.05° up to a few, 0.5° up to about a hundred)
        // instead of sorting a latitude band. The cells are generated columns: nothing writes them.
        migrator.registerMigration("feed.v14.place-cells") { db in
            try db.execute(
                sql: """
                    ALTER TABLE post ADD COLUMN place_block INTEGER GENERATED ALWAYS AS
                        (CAST((latitude + 90) / 0.01 AS INTEGER) * 36000 + CAST((longitude + 180) / 0.01 AS INTEGER)) VIRTUAL;
                    ALTER TABLE post ADD COLUMN place_cell INTEGER GENERATED ALWAYS AS
                        (CAST((latitude + 90) / 0.05 AS INTEGER) * 7200 + CAST((longitude + 180) / 0.05 AS INTEGER)) VIRTUAL;
                    ALTER TABLE post ADD COLUMN place_region INTEGER GENERATED ALWAYS AS
                        (CAST((latitude + 90) / 0.5 AS INTEGER) * 720 + CAST((longitude + 180) / 0.5 AS INTEGER)) VIRTUAL;
                    CREATE INDEX post_by_block ON post (place_block, created_ms, id, latitude, longitude)
                    WHERE latitude IS NOT NULL AND media_id IS NOT NULL AND parent_id IS NULL;
                    CREATE INDEX post_by_cell ON post (place_cell, created_ms, id, latitude, longitude)
                    WHERE latitude IS NOT NULL AND media_id IS NOT NULL AND parent_id IS NULL;
                    CREATE INDEX post_by_region ON post (place_region, created_ms, id, latitude, longitude)
                    WHERE latitude IS NOT NULL AND media_id IS NOT NULL AND parent_id IS NULL;
                    """)
        }
        // The cells' indexes carry each post's votes: ranked nearby orders the circle's 1,000
        // newest by them, and reading each from its row (a table lookup per candidate) was four
        // fifths of reading a 5 km circle's candidates. A vote now also moves the post's entries.
        migrator.registerMigration("feed.v15.place-cells-with-votes") { db in
            for (column, name) in [
                ("place_block", "post_by_block"), ("place_cell", "post_by_cell"), ("place_region", "post_by_region"),
            ] {
                try db.execute(
                    sql: """
                        DROP INDEX \(name);
                        CREATE INDEX \(name) ON post (\(column), created_ms, id, latitude, longitude, upvotes, downvotes)
                        WHERE latitude IS NOT NULL AND media_id IS NOT NULL AND parent_id IS NULL;
                        """)
            }
        }

        // The copies of what lists show of people and media (views).
        ProfileMirror.registerMigration(&migrator)
        MediaMirror.registerMigration(&migrator)

        // Who was told which spot was near them, and when (SkateHubba's `spot_nearby`).
        migrator.registerMigration("feed.v16.spot-notices") { db in
            try db.create(table: "spot_notice") { table in
                table.column("user_id", .text).notNull()
                table.column("spot_id", .text).notNull().references("spot", onDelete: .cascade)
                table.column("told_at", .datetime).notNull()
                table.primaryKey(["user_id", "spot_id"])
            }
            try db.create(index: "spot_notice_by_user", on: "spot_notice", columns: ["user_id", "told_at"])
            try db.create(index: "spot_notice_by_spot", on: "spot_notice", columns: ["spot_id"])
        }
    }
}
