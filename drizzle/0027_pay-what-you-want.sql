ALTER TABLE "cart_items" ADD COLUMN "chosen_cents" integer;--> statement-breakpoint
ALTER TABLE "books" ADD COLUMN "pwyw_min_cents" integer;--> statement-breakpoint
ALTER TABLE "cart_items" ADD CONSTRAINT "cart_items_chosen_check" CHECK ("cart_items"."chosen_cents" is null or "cart_items"."chosen_cents" >= 0);--> statement-breakpoint
ALTER TABLE "books" ADD CONSTRAINT "books_pwyw_min_check" CHECK ("books"."pwyw_min_cents" is null or ("books"."pwyw_min_cents" >= 0 and "books"."pwyw_min_cents" <= "books"."price_cents"));