-- `books.reviews_version` changes whenever what a book's public review pages show could change: a review
-- written, edited, deleted, hidden, restored, voted helpful or made unowned by a refund, and an author's email
-- (their shown name) changed. Each instance keeps those pages in memory under this version, so that a page
-- view reads the book row (which it does anyway) instead of the reviews (docs/decisions/016).
CREATE FUNCTION "reviews_bump_book_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE "books" SET "reviews_version" = "reviews_version" + 1 WHERE "id" = OLD."book_id";
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW."book_id" <> OLD."book_id") THEN
    UPDATE "books" SET "reviews_version" = "reviews_version" + 1 WHERE "id" = NEW."book_id";
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "reviews_bump_book_version"
AFTER INSERT OR DELETE OR UPDATE ON "reviews"
FOR EACH ROW
EXECUTE FUNCTION "reviews_bump_book_version"();--> statement-breakpoint
CREATE FUNCTION "user_email_bump_reviews_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "books" SET "reviews_version" = "reviews_version" + 1
  WHERE "id" IN (SELECT "book_id" FROM "reviews" WHERE "user_id" = NEW."id");
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "user_email_bump_reviews_version"
AFTER UPDATE OF "email" ON "user"
FOR EACH ROW
WHEN (OLD."email" IS DISTINCT FROM NEW."email")
EXECUTE FUNCTION "user_email_bump_reviews_version"();
