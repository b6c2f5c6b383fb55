-- Search (issue 3): full-text search over title, author, topics and description, prefix matches on titles,
-- and a dictionary of the catalogue's words for typo correction with trigrams. Hand-written (drizzle-kit
-- cannot express these): the queries live in app/features/search/search.server.ts.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
-- A book's searchable text as one weighted document. Index expressions need IMMUTABLE functions and
-- array_to_string is only STABLE (in general an element's text form can depend on settings; for text[] it
-- cannot), so this wrapper vouches for it. The configuration is schema-qualified so that the index never
-- depends on search_path. COST: computing a document is slow (~0.1 ms), so the planner should always
-- prefer the index to evaluating it row by row.
CREATE FUNCTION books_search_document(title text, author text, topics text[], description text)
RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE COST 1000
AS $$
  SELECT setweight(to_tsvector('pg_catalog.english'::regconfig, title), 'A')
    || setweight(to_tsvector('pg_catalog.english'::regconfig, author), 'B')
    || setweight(to_tsvector('pg_catalog.english'::regconfig, array_to_string(topics, ' ')), 'B')
    || setweight(to_tsvector('pg_catalog.english'::regconfig, description), 'C')
$$;
--> statement-breakpoint
-- fastupdate off: PGlite has no autovacuum to merge GIN's pending list, and every search would scan it.
-- Books are added rarely; each insert pays to update the index at once.
CREATE INDEX "books_search_document_idx" ON "books" USING gin (books_search_document("title", "author", "topics", "description")) WITH (fastupdate = off);
--> statement-breakpoint
-- Title matches rank first and are collected on their own, so they need their own index.
CREATE INDEX "books_title_search_idx" ON "books" USING gin (to_tsvector('pg_catalog.english'::regconfig, "title")) WITH (fastupdate = off);
--> statement-breakpoint
-- Suggestions for one or two letters: titles starting with them (LIKE 'dj%'), whatever the collation.
CREATE INDEX "books_title_prefix_idx" ON "books" USING btree (lower("title") text_pattern_ops);
--> statement-breakpoint
-- Every word of the catalogue, for correcting a misspelt query ('djnago' → 'django'): trigram similarity
-- against a few thousand distinct words is fast and precise, against every title it is neither (a
-- transposition in a six-letter word leaves a similarity of about 0.27). Kept up to date by triggers; a word
-- whose last book is deleted stays, which only costs a correction that finds nothing.
CREATE TABLE "search_words" (
	"word" text PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE INDEX "search_words_trgm_idx" ON "search_words" USING gist ("word" gist_trgm_ops);
--> statement-breakpoint
CREATE FUNCTION search_words_collect() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  INSERT INTO search_words (word)
  SELECT DISTINCT w.lexeme
  FROM changed_books b,
    unnest(to_tsvector('pg_catalog.simple'::regconfig,
      concat_ws(' ', b.title, b.author, array_to_string(b.topics, ' '), b.description))) AS w
  WHERE length(w.lexeme) BETWEEN 3 AND 40
  ON CONFLICT (word) DO NOTHING;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Transition tables allow one event per trigger, hence two triggers sharing the function.
CREATE TRIGGER "books_search_words_insert" AFTER INSERT ON "books"
REFERENCING NEW TABLE AS changed_books
FOR EACH STATEMENT EXECUTE FUNCTION search_words_collect();
--> statement-breakpoint
CREATE TRIGGER "books_search_words_update" AFTER UPDATE ON "books"
REFERENCING NEW TABLE AS changed_books
FOR EACH STATEMENT EXECUTE FUNCTION search_words_collect();
--> statement-breakpoint
INSERT INTO search_words (word)
SELECT DISTINCT w.lexeme
FROM books b,
  unnest(to_tsvector('pg_catalog.simple'::regconfig,
    concat_ws(' ', b.title, b.author, array_to_string(b.topics, ' '), b.description))) AS w
WHERE length(w.lexeme) BETWEEN 3 AND 40
ON CONFLICT (word) DO NOTHING;
