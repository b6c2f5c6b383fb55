CREATE TABLE "book_topics" (
	"book_id" uuid NOT NULL,
	"topic_id" uuid NOT NULL,
	"position" smallint NOT NULL,
	CONSTRAINT "book_topics_book_id_topic_id_pk" PRIMARY KEY("book_id","topic_id")
);
--> statement-breakpoint
CREATE TABLE "topic_slug_redirects" (
	"slug" text PRIMARY KEY NOT NULL,
	"topic_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "topics" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "topics_slug_check" CHECK ("topics"."slug" ~ '^[a-z0-9]+(-[a-z0-9]+)*$')
);
--> statement-breakpoint
ALTER TABLE "book_topics" ADD CONSTRAINT "book_topics_book_id_books_id_fk" FOREIGN KEY ("book_id") REFERENCES "public"."books"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "book_topics" ADD CONSTRAINT "book_topics_topic_id_topics_id_fk" FOREIGN KEY ("topic_id") REFERENCES "public"."topics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "topic_slug_redirects" ADD CONSTRAINT "topic_slug_redirects_topic_id_topics_id_fk" FOREIGN KEY ("topic_id") REFERENCES "public"."topics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "book_topics_book_position_unique" ON "book_topics" USING btree ("book_id","position");--> statement-breakpoint
CREATE INDEX "book_topics_topic_idx" ON "book_topics" USING btree ("topic_id");--> statement-breakpoint
CREATE UNIQUE INDEX "topics_slug_unique" ON "topics" USING btree ("slug");--> statement-breakpoint
CREATE UNIQUE INDEX "topics_name_lower_unique" ON "topics" USING btree (lower("name"));--> statement-breakpoint
-- Today's topics (books.topics, as typed: a slug like 'machine-learning' or words like 'systems programming')
-- become named topics, named as the store showed them (facets.ts's names, else title case), and each book keeps
-- its topics in their order. A topic is its name, case aside: 'api' and 'apis' (both 'APIs'), 'node' and
-- 'node.js' (both 'Node.js') become one topic; two names with one slug ('C' and 'C++') two topics, 'c' and 'c-2'.
CREATE TEMP TABLE "topic_names_0020" AS
SELECT raw, name, lower(name) AS key, base_slug
FROM (
  SELECT raw, base_slug,
    CASE base_slug
      WHEN 'ai' THEN 'AI' WHEN 'api' THEN 'APIs' WHEN 'async' THEN 'Asynchronous Programming'
      WHEN 'css' THEN 'CSS' WHEN 'devops' THEN 'DevOps' WHEN 'go' THEN 'Go' WHEN 'html' THEN 'HTML'
      WHEN 'javascript' THEN 'JavaScript' WHEN 'machine-learning' THEN 'Machine Learning'
      WHEN 'node' THEN 'Node.js' WHEN 'typescript' THEN 'TypeScript' WHEN 'ui' THEN 'UI' WHEN 'ux' THEN 'UX'
      WHEN 'web' THEN 'Web Development'
      ELSE initcap(regexp_replace(raw, '[-\s]+', ' ', 'g'))
    END AS name
  FROM (
    SELECT raw,
      coalesce(nullif(trim(BOTH '-' FROM regexp_replace(raw, '[^a-z0-9]+', '-', 'g')), ''), 'topic') AS base_slug
    FROM (SELECT DISTINCT lower(trim(unnest("topics"))) AS raw FROM "books") t
    WHERE raw <> ''
  ) s
) n;
--> statement-breakpoint
INSERT INTO "topics" ("slug", "name")
SELECT CASE WHEN k = 1 THEN base_slug ELSE base_slug || '-' || k END, name
FROM (
  SELECT name, base_slug, row_number() OVER (PARTITION BY base_slug ORDER BY key) AS k
  FROM (SELECT DISTINCT ON (key) key, name, base_slug FROM "topic_names_0020" ORDER BY key, raw) one_per_name
) numbered;
--> statement-breakpoint
INSERT INTO "book_topics" ("book_id", "topic_id", "position")
SELECT book_id, topic_id, (row_number() OVER (PARTITION BY book_id ORDER BY first) - 1)::smallint
FROM (
  SELECT b.id AS book_id, t.id AS topic_id, min(u.n) AS first
  FROM "books" b
  CROSS JOIN LATERAL unnest(b."topics") WITH ORDINALITY AS u(raw, n)
  JOIN "topic_names_0020" tn ON tn.raw = lower(trim(u.raw))
  JOIN "topics" t ON lower(t.name) = tn.key
  GROUP BY b.id, t.id
) p;
--> statement-breakpoint
DROP TABLE "topic_names_0020";
--> statement-breakpoint
-- books.topics becomes a derived copy of the names, for the search document's index (which reads only the
-- book's row): these triggers write it whenever a book's topics or a topic's name change.
CREATE FUNCTION book_topics_copy_names() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  UPDATE books b
  SET topics = coalesce((
    SELECT array_agg(t.name ORDER BY bt.position)
    FROM book_topics bt JOIN topics t ON t.id = bt.topic_id
    WHERE bt.book_id = b.id), '{}')
  WHERE b.id IN (SELECT book_id FROM changed_book_topics);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "book_topics_copy_names_insert" AFTER INSERT ON "book_topics"
REFERENCING NEW TABLE AS changed_book_topics
FOR EACH STATEMENT EXECUTE FUNCTION book_topics_copy_names();
--> statement-breakpoint
CREATE TRIGGER "book_topics_copy_names_update" AFTER UPDATE ON "book_topics"
REFERENCING NEW TABLE AS changed_book_topics
FOR EACH STATEMENT EXECUTE FUNCTION book_topics_copy_names();
--> statement-breakpoint
CREATE TRIGGER "book_topics_copy_names_delete" AFTER DELETE ON "book_topics"
REFERENCING OLD TABLE AS changed_book_topics
FOR EACH STATEMENT EXECUTE FUNCTION book_topics_copy_names();
--> statement-breakpoint
CREATE FUNCTION topics_copy_names() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  UPDATE books b
  SET topics = coalesce((
    SELECT array_agg(t.name ORDER BY bt.position)
    FROM book_topics bt JOIN topics t ON t.id = bt.topic_id
    WHERE bt.book_id = b.id), '{}')
  WHERE b.id IN (
    SELECT bt.book_id FROM book_topics bt
    WHERE bt.topic_id IN (SELECT r.id FROM renamed_topics r));
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "topics_copy_names" AFTER UPDATE ON "topics"
REFERENCING NEW TABLE AS renamed_topics
FOR EACH STATEMENT EXECUTE FUNCTION topics_copy_names();
--> statement-breakpoint
UPDATE "books" b
SET "topics" = coalesce(n.names, '{}')
FROM "books" o
LEFT JOIN (
  SELECT bt.book_id, array_agg(t.name ORDER BY bt.position) AS names
  FROM "book_topics" bt JOIN "topics" t ON t.id = bt.topic_id
  GROUP BY bt.book_id
) n ON n.book_id = o.id
WHERE o.id = b.id AND b."topics" IS DISTINCT FROM coalesce(n.names, '{}');
