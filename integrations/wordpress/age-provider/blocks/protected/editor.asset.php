<?php
/**
 * The editor script's dependencies (read by register_block_type from block.json).
 *
 * @package AgeProvider
 */

return array(
	'dependencies' => array('wp-blocks', 'wp-block-editor', 'wp-element'),
	'version'      => '0.1.0',
);
