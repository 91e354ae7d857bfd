-- test/citus/foreign_keys.sql: the foreign keys of schema.sql, added after
-- distribute.sql on the coordinator (and after schema.sql on the plain node).
SET search_path = shop, public;
ALTER TABLE categories ADD FOREIGN KEY (parent_id) REFERENCES categories;
ALTER TABLE users ADD FOREIGN KEY (shop_id) REFERENCES shops;
ALTER TABLE products ADD FOREIGN KEY (shop_id) REFERENCES shops;
ALTER TABLE products ADD FOREIGN KEY (category_id) REFERENCES categories;
ALTER TABLE orders ADD FOREIGN KEY (shop_id) REFERENCES shops;
ALTER TABLE orders ADD FOREIGN KEY (shop_id, user_id) REFERENCES users (shop_id, id);
ALTER TABLE order_items ADD FOREIGN KEY (shop_id) REFERENCES shops;
ALTER TABLE order_items ADD FOREIGN KEY (shop_id, order_id) REFERENCES orders (shop_id, id) ON DELETE CASCADE;
ALTER TABLE order_items ADD FOREIGN KEY (shop_id, product_id) REFERENCES products (shop_id, id);
ALTER TABLE transactions ADD FOREIGN KEY (shop_id) REFERENCES shops;
ALTER TABLE transactions ADD FOREIGN KEY (shop_id, order_id) REFERENCES orders (shop_id, id) ON DELETE CASCADE;
ALTER TABLE order_tags ADD FOREIGN KEY (shop_id) REFERENCES shops;
ALTER TABLE order_tags ADD FOREIGN KEY (shop_id, order_id) REFERENCES orders (shop_id, id) ON DELETE CASCADE;
