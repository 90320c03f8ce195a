package kgviz.realkafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * Runs each code path the scenarios use once on a fresh broker (a transaction with offsets, a
 * classic and a KIP-848 group), so the first scenario does not pay the broker's own warm-up
 * (loading the coordinators' partitions, compiling their code) inside its ticks.
 */
final class WarmUp {
    static void run(Broker b, Admin admin) throws Exception {
        admin.createTopics(List.of(new NewTopic("warmup", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, b.bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "warmup-tx");
        try (KafkaProducer<String, String> prod = new KafkaProducer<>(p)) {
            prod.initTransactions();
            for (int i = 0; i < 3; i++) {
                prod.beginTransaction();
                prod.send(new ProducerRecord<>("warmup", 0, null, "w" + i)).get();
                prod.sendOffsetsToTransaction(Map.of(new TopicPartition("warmup", 0), new OffsetAndMetadata(i + 1)),
                    new ConsumerGroupMetadata("warmup-txn-group"));
                prod.commitTransaction();
            }
        }
        for (String protocol : List.of("classic", "consumer")) {
            Properties c = new Properties();
            c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, b.bootstrap);
            c.put(ConsumerConfig.GROUP_ID_CONFIG, "warmup-" + protocol);
            c.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
            c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            try (KafkaConsumer<String, String> con = new KafkaConsumer<>(c)) {
                con.subscribe(List.of("warmup"));
                long end = System.currentTimeMillis() + 30_000;
                int n = 0;
                while (n < 3 && System.currentTimeMillis() < end) n += con.poll(Duration.ofMillis(200)).count();
                con.commitSync();
            }
        }
    }
}
