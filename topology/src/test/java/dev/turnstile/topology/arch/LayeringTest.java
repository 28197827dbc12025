package dev.turnstile.topology.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

class LayeringTest {

  static final JavaClasses CLASSES =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
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
}
