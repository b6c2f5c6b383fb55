CREATE TABLE "author_slug_redirects" (
	"slug" text PRIMARY KEY NOT NULL,
	"author_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "authors" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"bio" text DEFAULT '' NOT NULL,
	"photo" jsonb,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "authors_slug_check" CHECK ("authors"."slug" ~ '^[a-z0-9]+(-[a-z0-9]+)*$')
);
--> statement-breakpoint
ALTER TABLE "books" ADD COLUMN "author_id" uuid;--> statement-breakpoint
ALTER TABLE "author_slug_redirects" ADD CONSTRAINT "author_slug_redirects_author_id_authors_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."authors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "authors_slug_unique" ON "authors" USING btree ("slug");--> statement-breakpoint
CREATE UNIQUE INDEX "authors_name_lower_unique" ON "authors" USING btree (lower("name"));--> statement-breakpoint
ALTER TABLE "books" ADD CONSTRAINT "books_author_id_authors_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."authors"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "books_author_id_idx" ON "books" USING btree ("author_id");--> statement-breakpoint
-- The slug of an author's page from their name, as topics' and books' are made: accents dropped, lower case,
-- every run of other characters one hyphen, at most 60 characters ('Lucía Ferreira' → 'lucia-ferreira').
CREATE FUNCTION author_slug_base(author_name text) RETURNS text
LANGUAGE sql STABLE
AS $$
  SELECT coalesce(nullif(regexp_replace(left(trim(BOTH '-' FROM regexp_replace(
    lower(regexp_replace(normalize(author_name, NFKD), '[\u0300-\u036f]', '', 'g')),
    '[^a-z0-9]+', '-', 'g')), 60), '-+$', ''), ''), 'author')
$$;
--> statement-breakpoint
-- The author called `author_name` in any case, created (slug from the name, -2, -3… when another author has or
-- had it) when there is none: how a book given only a name is filed (the trigger below, the book form).
CREATE FUNCTION ensure_author(author_name text) RETURNS uuid
LANGUAGE plpgsql
AS $$
DECLARE
  found uuid;
  base text := author_slug_base(author_name);
  candidate text := base;
  n integer := 1;
BEGIN
  LOOP
    SELECT id INTO found FROM authors WHERE lower(name) = lower(author_name);
    IF found IS NOT NULL THEN RETURN found; END IF;
    IF NOT EXISTS (SELECT 1 FROM authors WHERE slug = candidate)
      AND NOT EXISTS (SELECT 1 FROM author_slug_redirects WHERE slug = candidate) THEN
      -- A concurrent insert of the same name or slug makes this one do nothing: the loop looks again.
      INSERT INTO authors (slug, name) VALUES (candidate, author_name) ON CONFLICT DO NOTHING RETURNING id INTO found;
      IF found IS NOT NULL THEN RETURN found; END IF;
    END IF;
    n := n + 1;
    IF n > 1000 THEN RAISE EXCEPTION 'no free slug for the author %', author_name; END IF;
    candidate := base || '-' || n;
  END LOOP;
END
$$;
--> statement-breakpoint
-- Today's authors (books.author, a name) become authors, one per name in any case (the first spelling in the
-- order of books' creation), with a slug from the name; each book points to its author.
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN
    SELECT name FROM (
      SELECT DISTINCT ON (lower(trim("author"))) trim("author") AS name, "created_at", "id"
      FROM "books"
      WHERE trim("author") <> ''
      ORDER BY lower(trim("author")), "created_at", "id"
    ) d
    ORDER BY "created_at", "id"
  LOOP
    PERFORM ensure_author(r.name);
  END LOOP;
END
$$;
--> statement-breakpoint
UPDATE "books" b SET "author_id" = a."id"
FROM "authors" a
WHERE lower(a."name") = lower(trim(b."author"));
--> statement-breakpoint
-- A book with an empty author name (the form never allowed one) gets an author all the same.
UPDATE "books" SET "author_id" = ensure_author('Unknown author') WHERE "author_id" IS NULL;
--> statement-breakpoint
ALTER TABLE "books" ALTER COLUMN "author_id" SET NOT NULL;
--> statement-breakpoint
-- books.author becomes the author's name as the authors table has it, for the search document's index and the
-- lists that show it: a book given only a name (an insert without author_id, or a changed name) is filed under
-- that author, created if need be; a renamed author's books follow.
CREATE FUNCTION books_copy_author_name() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  IF NEW.author_id IS NULL
    OR (TG_OP = 'UPDATE' AND NEW.author_id = OLD.author_id AND NEW.author IS DISTINCT FROM OLD.author) THEN
    NEW.author_id := ensure_author(trim(NEW.author));
  END IF;
  NEW.author := (SELECT name FROM authors WHERE id = NEW.author_id);
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "books_copy_author_name" BEFORE INSERT OR UPDATE OF "author", "author_id" ON "books"
FOR EACH ROW EXECUTE FUNCTION books_copy_author_name();
--> statement-breakpoint
CREATE FUNCTION authors_copy_name() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  UPDATE books SET author = NEW.name WHERE author_id = NEW.id AND author IS DISTINCT FROM NEW.name;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "authors_copy_name" AFTER UPDATE OF "name" ON "authors"
FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION authors_copy_name();
--> statement-breakpoint
UPDATE "books" b SET "author" = a."name"
FROM "authors" a
WHERE a."id" = b."author_id" AND b."author" IS DISTINCT FROM a."name";
