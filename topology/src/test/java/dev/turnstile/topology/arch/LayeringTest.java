package dev.turnstile.topology.arch;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The topology's rings. The allow-lists say what the domains may use at all: the JDK and Jackson
 * (the JSON tree is the data model of attributes and merge documents), and for the topology's
 * domain the shared device-event domain and contracts ({@code dev.turnstile.schemas}); nothing of
 * Kafka, Azure, Vert.x, Micrometer or logging.
 */
class LayeringTest {

  static final JavaClasses CLASSES =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          // The schemas test-jar (golden samples, contract checks) is on the classpath as a jar
          // once the reactor packaged it, where DO_NOT_INCLUDE_TESTS does not recognise it.
          .withImportOption(location -> !location.contains("-tests.jar"))
          .importPackages("dev.turnstile");

  @Test
  void theDomainImportsNoKafkaAzureOrVertxType() {
    noClasses()
        .that()
        .resideInAPackage("dev.turnstile.topology.domain..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("org.apache.kafka..", "com.azure..", "io.vertx..")
        .check(CLASSES);
  }

  @Test
  void theDomainDoesNotReachIntoAdapters() {
    noClasses()
        .that()
        .resideInAPackage("dev.turnstile.topology.domain..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.turnstile.topology.adapter..", "dev.turnstile.topology.config..")
        .check(CLASSES);
  }

  /**
   * The configuration is what adapters read, never the other way round: it names no adapter class
   * (the composition root hands Kafka Streams the adapter's classes, see {@code
   * StreamsProperties.Plugins}), so no package cycle runs through it.
   */
  @Test
  void theConfigurationDependsOnNoAdapter() {
    noClasses()
        .that()
        .resideInAPackage("dev.turnstile.topology.config..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.turnstile.topology.adapter..")
        .check(CLASSES);
  }

  @Test
  void theTopologysPackagesHaveNoCycle() {
    slices().matching("dev.turnstile.topology.(**)").should().beFreeOfCycles().check(CLASSES);
  }

  @Test
  void contractsImportNoKafkaType() {
    noClasses()
        .that()
        .resideInAPackage("dev.turnstile.schemas..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("org.apache.kafka..", "com.azure..", "io.vertx..")
        .check(CLASSES);
  }

  @Test
  void theTopologyDomainUsesOnlyTheJdkJacksonAndTheSharedDomain() {
    classes()
        .that()
        .resideInAPackage("dev.turnstile.topology.domain..")
        .should()
        .onlyDependOnClassesThat(
            resideInAnyPackage(
                "java..",
                "com.fasterxml.jackson..",
                "dev.turnstile.schemas..",
                "dev.turnstile.topology.domain.."))
        .check(CLASSES);
  }

  /**
   * The contracts module is also the device-event domain both processes share, and the jar
   * downstream teams depend on: plain Java and Jackson only.
   */
  @Test
  void theSharedDomainUsesOnlyTheJdkAndJackson() {
    classes()
        .that()
        .resideInAPackage("dev.turnstile.schemas..")
        .should()
        .onlyDependOnClassesThat(
            resideInAnyPackage("java..", "com.fasterxml.jackson..", "dev.turnstile.schemas.."))
        .check(CLASSES);
  }
}
