-- A book's ratings (count, sum of stars, how many of each star) follow its visible reviews on every write:
-- an insert, an edit, a delete, a moderator's hide or restore, and a refund taking the book back (below), all
-- in the writing transaction, so that no page view ever aggregates reviews (docs/decisions/016).
CREATE FUNCTION "reviews_maintain_book_ratings"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD."visible" THEN
    UPDATE "books"
    SET "rating_count" = "rating_count" - 1,
        "rating_sum" = "rating_sum" - OLD."rating",
        "rating_histogram"[OLD."rating"] = "rating_histogram"[OLD."rating"] - 1
    WHERE "id" = OLD."book_id";
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW."visible" THEN
    UPDATE "books"
    SET "rating_count" = "rating_count" + 1,
        "rating_sum" = "rating_sum" + NEW."rating",
        "rating_histogram"[NEW."rating"] = "rating_histogram"[NEW."rating"] + 1
    WHERE "id" = NEW."book_id";
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "reviews_maintain_book_ratings"
AFTER INSERT OR DELETE OR UPDATE OF "rating", "unowned", "hidden_at" ON "reviews"
FOR EACH ROW
EXECUTE FUNCTION "reviews_maintain_book_ratings"();--> statement-breakpoint
-- A review is its author's while they own the book: a refund (which deletes the library item, migration 0007,
-- whether refundOrder(), the Stripe webhook or an UPDATE by hand marked the order refunded) hides it; buying
-- the book again shows it again.
CREATE FUNCTION "library_items_review_ownership"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE "reviews" SET "unowned" = true
    WHERE "user_id" = OLD."user_id" AND "book_id" = OLD."book_id" AND NOT "unowned";
  ELSE
    UPDATE "reviews" SET "unowned" = false
    WHERE "user_id" = NEW."user_id" AND "book_id" = NEW."book_id" AND "unowned";
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "library_items_review_ownership"
AFTER INSERT OR DELETE ON "library_items"
FOR EACH ROW
EXECUTE FUNCTION "library_items_review_ownership"();
