-- test/citus/distribute.sql: distribute the shop schema (schema.sql) on the
-- coordinator, every tenant table by shop_id, co-located with shops
-- (distributed by its id); categories and announcements are reference
-- tables; shop_notes stays local to the coordinator.
SET client_min_messages = warning;
SET citus.shard_count = 32;
SELECT create_reference_table('shop.categories');
SELECT create_reference_table('shop.announcements');
SELECT create_distributed_table('shop.shops', 'id');
SELECT create_distributed_table('shop.users', 'shop_id', colocate_with => 'shop.shops');
SELECT create_distributed_table('shop.products', 'shop_id', colocate_with => 'shop.shops');
SELECT create_distributed_table('shop.orders', 'shop_id', colocate_with => 'shop.shops');
SELECT create_distributed_table('shop.order_items', 'shop_id', colocate_with => 'shop.shops');
SELECT create_distributed_table('shop.transactions', 'shop_id', colocate_with => 'shop.shops');
SELECT create_distributed_table('shop.order_tags', 'shop_id', colocate_with => 'shop.shops');
